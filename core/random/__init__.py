"""`didax.random`: JAX's counter-based PRNG on the `threefry2x32` primitive. Like `jax.random`.

Layer 5. `prng` holds the keys (`PRNGKey`, `key`, `KeyArray`), `split`, `fold_in`, `clone` and
`bits`; `samplers` the distributions built on them (`uniform`, `normal`, `randint`, ...). This
`__init__` only re-exports their public names.
"""

from didax.random.prng import (  # noqa: F401 - KeyDType, key_fry: the key dtype, as before
    KeyArray,
    KeyDType,
    PRNGKey,
    bits,
    clone,
    fold_in,
    key,
    key_data,
    key_fry,
    split,
    wrap_key_data,
)
from didax.random.samplers import (
    bernoulli,
    beta,
    categorical,
    choice,
    dirichlet,
    exponential,
    gamma,
    gumbel,
    loggamma,
    normal,
    permutation,
    randint,
    truncated_normal,
    uniform,
)

__all__ = [
    "KeyArray",
    "PRNGKey",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "choice",
    "clone",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "gumbel",
    "key",
    "key_data",
    "loggamma",
    "normal",
    "permutation",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]
