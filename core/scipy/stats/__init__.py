"""`didax.scipy.stats`: probability distributions, one module each (`norm.logpdf(x)`). Like
`jax.scipy.stats`. Layer 5 package; this `__init__` only re-exports the modules."""

from didax.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
)
