"""The regularized incomplete gamma and beta functions as lax primitives: `igamma`,
`igammac`, `igamma_grad_a` (the derivative of `igamma` in `a`) and `betainc`
(`regularized_incomplete_beta` in jaxprs), and `random_gamma_grad` (the derivative of a
`Gamma(a, 1)` draw in `a`, which `random.gamma`'s jvp divides). Like `jax.lax`'s.

Layer 5 (first in `didax.lax`): XLA has no kernels for these, so JAX lowers each by tracing an
implementation in lax ops (`mlir.lower_fun`), XLA's `math.cc` ported: the power series and
the continued fraction of Cephes' `igam`/`igamc` with their derivatives in `a`, and Lentz's
algorithm for the continued fraction of the incomplete beta function, each a `while_loop` run
until every element has converged. didax traces the same implementations (written here from
JAX's source, operands broadcast and float16/bfloat16 computed in float32 as JAX's
`_up_and_broadcast` does) and lowers the jaxpr in place, as `random_gamma_p` is lowered.
Eager values: SciPy's `gammainc`/`gammaincc`/`betainc` (float64, rounded), with XLA's answers
at the domain edges; `igamma_grad_a` runs its implementation compiled (a series may take
millions of steps: at a = x = 3e9 float32's `r + 1` is `r`). `random_gamma_grad` is a
function, not a primitive, as in JAX; called on Arrays it runs compiled too, as JAX's eager
`while_loop` does. JVPs are JAX's: `betainc` has one in `x` only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.compile.jit import jit
from didax.control_flow.while_loop import while_loop
from didax.interpreters import staging
from didax.primitives import elementwise as ew
from didax.primitives import rules, vmap_helpers
from didax.primitives.comparison import (
    bitwise_and,
    bitwise_not,
    bitwise_or,
    eq,
    ge,
    gt,
    le,
    lt,
    ne,
    select,
)
from didax.primitives.convert import convert_element_type
from didax.primitives.creation import full_like
from didax.primitives.elementwise.arithmetic import _const
from didax.primitives.reductions import reduce_or
from didax.primitives.shape import broadcast_in_dim, broadcast_shapes
from didax.primitives.special import _scipy_special, digamma, lgamma


class _Mode(enum.Enum):  # what the series and the continued fraction compute
    VALUE = 1
    DERIVATIVE = 2  # d igamma / d a
    SAMPLE_DERIVATIVE = 3  # d x / d a along igamma(a, x) = const


def _any(p: Any) -> Any:
    return reduce_or(p, tuple(range(core.get_aval(p).ndim)))


def _isnan(x: Any) -> Any:
    return ne(x, x)


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps)


def _or(*preds: Any) -> Any:
    out = preds[0]
    for p in preds[1:]:
        out = bitwise_or(out, p)
    return out


def _c(value: float, like: Any) -> Any:
    return _const(value, like)


# ----------------------------------------------------------------------------- the algorithms


def _igamma_series(ax, x, a, enabled, dtype, mode):
    # sum_k x^k / (a+1)...(a+k), and its derivative in a, elementwise until converged
    eps = _eps(dtype)

    def body(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = ew.add(r, _c(1, r))
        dc_da = ew.sub(ew.mul(dc_da, ew.div(x, r)), ew.div(ew.mul(c, x), ew.mul(r, r)))
        dans_da = ew.add(dans_da, dc_da)
        c = ew.mul(c, ew.div(x, r))
        ans = ew.add(ans, c)
        if mode == _Mode.VALUE:
            going = gt(ew.div(c, ans), _c(eps, c))
        else:
            going = gt(ew.abs(ew.div(dc_da, dans_da)), _c(eps, c))
        going = bitwise_and(enabled, going)
        new = (r, c, ans, x, dc_da, dans_da)
        return (going, *(select(enabled, v, old) for v, old in zip(new, vals[1:], strict=True)))

    init = (enabled, a, full_like(a, 1), full_like(a, 1), x, full_like(a, 0), full_like(a, 0))
    _, _, _, ans, _, _, dans_da = while_loop(lambda v: _any(v[0]), body, init)
    if mode == _Mode.VALUE:
        return ew.div(ew.mul(ans, ax), a)
    dlogax_da = ew.sub(ew.log(x), digamma(ew.add(a, _c(1, a))))
    if mode == _Mode.DERIVATIVE:
        return ew.div(ew.mul(ax, ew.add(ew.mul(ans, dlogax_da), dans_da)), a)
    return ew.div(ew.mul(ew.neg(ew.add(dans_da, ew.mul(ans, dlogax_da))), x), a)


def _igammac_fraction(ax, x, a, enabled, dtype, mode):
    # Cephes' continued fraction for igammac, and its derivative in a
    eps = _eps(dtype)

    def body(vals):
        enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2 = vals[:10]
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da = vals[10:]
        c = ew.add(c, _c(1, c))
        y = ew.add(y, _c(1, y))
        z = ew.add(z, _c(2, z))
        yc = ew.mul(y, c)
        pk = ew.sub(ew.mul(pkm1, z), ew.mul(pkm2, yc))
        qk = ew.sub(ew.mul(qkm1, z), ew.mul(qkm2, yc))
        nonzero = ne(qk, _c(0, qk))
        r = ew.div(pk, qk)
        t = select(nonzero, ew.abs(ew.div(ew.sub(ans, r), r)), full_like(r, 1))
        ans = select(nonzero, r, ans)
        dpk_da = ew.add(
            ew.sub(ew.sub(ew.mul(dpkm1_da, z), pkm1), ew.mul(dpkm2_da, yc)), ew.mul(pkm2, c)
        )
        dqk_da = ew.add(
            ew.sub(ew.sub(ew.mul(dqkm1_da, z), qkm1), ew.mul(dqkm2_da, yc)), ew.mul(qkm2, c)
        )
        dans_da_new = select(nonzero, ew.div(ew.sub(dpk_da, ew.mul(ans, dqk_da)), qk), dans_da)
        grad_change = select(nonzero, ew.abs(ew.sub(dans_da_new, dans_da)), full_like(dans_da, 1))
        rescale = gt(ew.abs(pk), ew.reciprocal(_c(eps, pk)))
        shifted = (pkm1, pk, qkm1, qk, dpkm1_da, dqkm1_da, dpk_da, dqk_da)  # (m2, m1) pairs
        scaled = [select(rescale, ew.mul(v, _c(eps, v)), v) for v in shifted]
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = scaled
        if mode == _Mode.VALUE:
            going = bitwise_and(enabled, gt(t, _c(eps, t)))
        else:
            going = bitwise_and(enabled, gt(grad_change, _c(eps, grad_change)))
        new = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2)
        new += (dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        kept = [v if i == 4 else select(enabled, v, vals[i + 1]) for i, v in enumerate(new)]
        return (going, *kept)

    y = ew.sub(_c(1, a), a)
    z = ew.add(ew.add(x, y), _c(1, x))
    pkm2 = full_like(x, 1)
    pkm1 = ew.add(x, _c(1, x))
    qkm1 = ew.mul(z, x)
    ans = ew.div(pkm1, qkm1)
    t = full_like(x, 1)
    dpkm2_da, dqkm2_da, dpkm1_da = full_like(x, 0), full_like(x, 0), full_like(x, 0)
    dqkm1_da = ew.neg(x)
    dans_da = ew.div(ew.sub(dpkm1_da, ew.mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, t, y, z, _c(0, x), pkm1, qkm1, pkm2, x)
    init += (dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)

    def cond(vals):
        return bitwise_and(lt(vals[5], _c(2000, vals[5])), _any(vals[0]))

    vals = while_loop(cond, body, init)
    ans = vals[1]
    if mode == _Mode.VALUE:
        return ew.mul(ans, ax)
    dlogax_da = ew.sub(ew.log(x), digamma(a))
    slope = ew.add(vals[14], ew.mul(ans, dlogax_da))
    if mode == _Mode.DERIVATIVE:
        return ew.mul(ax, slope)
    return ew.neg(ew.mul(slope, x))


def _ax(a: Any, x: Any, dtype: np.dtype) -> tuple[Any, Any]:
    # a log x - x - lgamma(a), whether exp of it underflows, and exp of it
    ax = ew.sub(ew.sub(ew.mul(a, ew.log(x)), x), lgamma(a))
    underflow = lt(ax, ew.neg(ew.log(np.asarray(np.finfo(dtype).max, dtype))))
    return underflow, ew.exp(ax)


def _edges(a: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    # what igamma and igammac answer without a series: x = 0, x = inf, a = 0, and the domain
    # errors (x < 0, a < 0, a = x = 0, a NaN)
    a_is_zero, x_is_zero, x_is_inf = eq(a, _c(0, a)), eq(x, _c(0, x)), eq(x, _c(np.inf, x))
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    domain_error = _or(lt(x, _c(0, x)), lt(a, _c(0, a)), bitwise_and(a_is_zero, x_is_zero), is_nan)
    return a_is_zero, x_is_zero, x_is_inf, domain_error


def _igamma_impl(a, x, dtype):
    _, x_is_zero, x_is_inf, domain_error = _edges(a, x)
    use_igammac = bitwise_and(ge(x, _c(1, x)), gt(x, a))
    underflow, ax = _ax(a, x, dtype)
    enabled = bitwise_not(_or(x_is_zero, domain_error, underflow, x_is_inf))
    fraction = _igammac_fraction(ax, x, a, bitwise_and(enabled, use_igammac), dtype, _Mode.VALUE)
    series = _igamma_series(
        ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), dtype, _Mode.VALUE
    )
    out = select(use_igammac, ew.sub(_c(1, a), fraction), series)
    out = select(x_is_zero, full_like(a, 0), out)
    out = select(x_is_inf, full_like(a, 1), out)
    return select(domain_error, full_like(a, np.nan), out)


def _igammac_impl(a, x, dtype):
    a_is_zero, _, x_is_inf, domain_error = _edges(a, x)
    use_igamma = bitwise_or(lt(x, _c(1, x)), lt(x, a))
    underflow, ax = _ax(a, x, dtype)
    enabled = bitwise_not(_or(domain_error, underflow, x_is_inf, a_is_zero))
    series = _igamma_series(ax, x, a, bitwise_and(enabled, use_igamma), dtype, _Mode.VALUE)
    fraction = _igammac_fraction(
        ax, x, a, bitwise_and(enabled, bitwise_not(use_igamma)), dtype, _Mode.VALUE
    )
    out = select(use_igamma, ew.sub(_c(1, a), series), fraction)
    out = select(bitwise_or(x_is_inf, a_is_zero), full_like(out, 0), out)
    return select(domain_error, full_like(a, np.nan), out)


def _grad_a_impl(mode: _Mode) -> Callable[..., Any]:
    # igamma_grad_a (DERIVATIVE) and random_gamma_grad (SAMPLE_DERIVATIVE)
    def impl(a, x, dtype):
        is_nan = bitwise_or(_isnan(a), _isnan(x))
        x_is_zero = eq(x, full_like(x, 0))
        domain_error = bitwise_or(lt(x, full_like(x, 0)), le(a, full_like(a, 0)))
        use_igammac = bitwise_and(gt(x, full_like(x, 1)), gt(x, a))
        underflow, ax = _ax(a, x, dtype)
        enabled = bitwise_not(_or(x_is_zero, domain_error, underflow, is_nan))
        fraction = _igammac_fraction(ax, x, a, bitwise_and(enabled, use_igammac), dtype, mode)
        fraction = ew.neg(fraction)
        series = _igamma_series(
            ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), dtype, mode
        )
        out = select(use_igammac, fraction, series)
        out = select(x_is_zero, full_like(out, 0), out)
        return select(bitwise_or(domain_error, is_nan), full_like(a, np.nan), out)

    return impl


def _lentz(num_iterations, small, nth_numerator, nth_denominator, inputs):
    # Lentz-Thompson-Barnett evaluation of a continued fraction, to relative change `small`
    def body(vals):
        i, _, c, d, h = vals
        numerator, denominator = nth_numerator(i, *inputs), nth_denominator(i, *inputs)
        tiny = full_like(c, small)
        c = ew.add(denominator, ew.div(numerator, c))
        c = select(lt(ew.abs(c), tiny), tiny, c)
        d = ew.add(denominator, ew.mul(numerator, d))
        d = ew.reciprocal(select(lt(ew.abs(d), tiny), tiny, d))
        delta = ew.mul(c, d)
        unconverged = _any(ge(ew.abs(ew.sub(delta, _c(1, delta))), _c(small, delta)))
        return (ew.add(i, np.int32(1)), unconverged, c, d, ew.mul(h, delta))

    first = nth_denominator(np.int32(0), *inputs)
    h = select(lt(ew.abs(first), _c(small, first)), full_like(first, small), first)
    init = (np.int32(1), np.bool_(True), h, full_like(h, 0), h)
    cond = lambda v: bitwise_and(lt(v[0], np.int32(num_iterations)), v[1])  # noqa: E731
    return while_loop(cond, body, init)[4]


def _betainc_impl(a, b, x, dtype):
    shape = core.get_aval(a).shape

    def numerator(i, a, b, x):  # DLMF 8.17.23; 1 at the first step
        i = broadcast_in_dim(i, shape, ())
        even = eq(ew.rem(i, full_like(i, 2)), full_like(i, 0))
        m_int = ew.div(ew.sub(i, full_like(i, 1)), full_like(i, 2))
        m = convert_element_type(m_int, dtype)
        one, two = full_like(a, 1), full_like(a, 2)
        apb = ew.add(a, b)
        first = ew.div(ew.mul(ew.neg(apb), x), ew.add(a, one))
        a2m = ew.add(a, ew.mul(two, m))
        even_n = ew.div(
            ew.mul(ew.mul(ew.neg(ew.add(a, m)), ew.add(apb, m)), x),
            ew.mul(a2m, ew.add(a2m, one)),
        )
        even_n = select(eq(m_int, full_like(m_int, 0)), first, even_n)
        odd_n = ew.div(ew.mul(ew.mul(m, ew.sub(b, m)), x), ew.mul(ew.sub(a2m, one), a2m))
        out = select(even, even_n, odd_n)
        return select(eq(i, full_like(i, 1)), full_like(x, 1), out)

    def denominator(i, a, b, x):
        i = broadcast_in_dim(i, shape, ())
        return select(eq(i, full_like(i, 0)), full_like(x, 0), full_like(x, 1))

    inf = full_like(a, np.inf)
    a_is_zero = bitwise_or(eq(a, full_like(a, 0)), eq(b, inf))
    b_is_zero = bitwise_or(eq(b, full_like(b, 0)), eq(a, inf))
    x_is_zero, x_is_one = eq(x, full_like(x, 0)), eq(x, full_like(x, 1))
    is_nan = _or(_isnan(a), _isnan(b), _isnan(x))
    result_is_zero = bitwise_or(
        bitwise_and(b_is_zero, bitwise_not(x_is_one)), bitwise_and(a_is_zero, x_is_zero)
    )
    result_is_one = bitwise_or(
        bitwise_and(a_is_zero, bitwise_not(x_is_zero)), bitwise_and(b_is_zero, x_is_one)
    )
    zero = full_like(a, 0)
    result_is_nan = _or(lt(a, zero), lt(b, zero), lt(x, zero), gt(x, full_like(x, 1)))
    result_is_nan = _or(result_is_nan, bitwise_and(a_is_zero, b_is_zero), is_nan)
    # the fraction converges fast for x < (a+1)/(a+b+2); otherwise use I_x(a,b) = 1 - I_1-x(b,a)
    bound = ew.div(ew.add(a, full_like(a, 1)), ew.add(ew.add(a, b), full_like(b, 2)))
    fast = lt(x, bound)
    a, b = select(fast, a, b), select(fast, b, a)
    x = select(fast, x, ew.sub(full_like(x, 1), x))
    small = float(np.finfo(dtype).eps / 2)
    iterations = 200 if dtype == np.float32 else 600
    fraction = _lentz(iterations, small, numerator, denominator, [a, b, x])
    # for tiny a, a * gamma(a) = gamma(a + 1) -> 1 avoids dividing by zero
    very_small = float(np.finfo(dtype).tiny * 2)
    lbeta_small_a = ew.sub(lgamma(b), lgamma(ew.add(a, b)))
    lbeta = ew.add(lgamma(a), lbeta_small_a)
    log1m_x = ew.log1p(ew.neg(x))
    factor = select(
        lt(a, full_like(a, very_small)),
        ew.exp(ew.sub(ew.mul(log1m_x, b), lbeta_small_a)),
        ew.div(ew.exp(ew.sub(ew.add(ew.mul(ew.log(x), a), ew.mul(log1m_x, b)), lbeta)), a),
    )
    out = ew.mul(fraction, factor)
    out = select(fast, out, ew.sub(full_like(out, 1), out))
    out = select(result_is_zero, full_like(a, 0), out)
    out = select(result_is_one, full_like(a, 1), out)
    return select(result_is_nan, full_like(a, np.nan), out)


def _up_and_broadcast(impl: Callable[..., Any]) -> Callable[..., Any]:
    """`impl` on operands broadcast to one shape, float16/bfloat16 computed in float32 (as
    JAX's `_up_and_broadcast`)."""

    def run(*args: Any) -> Any:
        avals = [core.get_aval(x) for x in args]
        shape = broadcast_shapes(*(v.shape for v in avals))
        args = [broadcast_in_dim(x, shape, range(v.ndim)) for x, v in zip(args, avals, strict=True)]
        dtype = avals[0].dtype
        work = np.dtype(np.float32) if dtype in (np.float16, dtypes.bfloat16) else dtype
        if work != dtype:
            args = [convert_element_type(x, work) for x in args]
        out = impl(*args, work)
        return convert_element_type(out, dtype) if work != dtype else out

    return run


# ----------------------------------------------------------------------------- primitives


def _eager(fn: Callable[..., np.ndarray], name: str) -> core.ImplRule:
    def numpy_fn(*xs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*(x.astype(np.float64) for x in xs)))

    return rules.elementwise_impl(numpy_fn, rules.naryop_aval(name, "float"), True)


def _xla_edges(a: np.ndarray, x: np.ndarray, out: np.ndarray, at_inf: float) -> np.ndarray:
    # the selects of XLA's algorithm where SciPy answers otherwise: a = inf with x >= 1 makes
    # `a log x - lgamma(a)` NaN; x = inf gives `at_inf`; (0, 0) and NaNs are domain errors
    out = np.where(np.isposinf(a) & (x >= 1), np.nan, out)
    out = np.where(np.isposinf(x), at_inf, out)
    bad = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | np.isnan(a) | np.isnan(x)
    return np.where(bad, np.nan, out)


def _gammainc_numpy(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = _scipy_special().gammainc(a, x)
    out = np.where((a == 0) & (x > 0) & (x < 1), np.nan, out)  # XLA's series: 0 / 0
    return _xla_edges(a, x, out, 1.0)


def _gammaincc_numpy(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = _scipy_special().gammaincc(a, x)
    return _xla_edges(a, x, np.where(a == 0, 0.0, out), 0.0)


def _betainc_numpy(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _scipy_special().betainc(a, b, x)  # at the edges SciPy's answers are XLA's


def _primitive(name: str, eager: core.ImplRule | None, impl: Callable[..., Any]) -> core.Primitive:
    """An elementwise primitive on floats, lowered as JAX lowers it with `mlir.lower_fun`:
    the jaxpr of `impl` (operands broadcast, half precisions in float32), in place."""
    prim = core.Primitive(name)
    traced = _up_and_broadcast(impl)
    if eager is None:  # the lax implementation, compiled
        compiled = jit(traced)
        eager = rules.validated_impl(prim, lambda *xs: [compiled(*xs)])
    core.impl_rules.register(prim, eager)
    core.abstract_eval_rules.register(prim, rules.naryop_aval(name, "float"))
    core.vmap_rules.register(prim, vmap_helpers.broadcasting_vmap(prim.bind))

    @core.lowering_rules.register(prim)
    def lowering(ctx, *args):
        closed = staging.trace_to_jaxpr(lambda *xs: [traced(*xs)], ctx.avals_in)
        return ctx.lower_jaxpr(closed, list(args))

    return prim


igamma_p = _primitive("igamma", _eager(_gammainc_numpy, "igamma"), _igamma_impl)
igammac_p = _primitive("igammac", _eager(_gammaincc_numpy, "igammac"), _igammac_impl)
igamma_grad_a_p = _primitive("igamma_grad_a", None, _grad_a_impl(_Mode.DERIVATIVE))
regularized_incomplete_beta_p = _primitive(
    "regularized_incomplete_beta",
    _eager(_betainc_numpy, "regularized_incomplete_beta"),
    _betainc_impl,
)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function `P(a, x)`. Like `jax.lax.igamma`."""
    return igamma_p.bind(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`. Like
    `jax.lax.igammac`."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """The derivative of `igamma(a, x)` in `a`. Like `jax.lax.igamma_grad_a`."""
    return igamma_grad_a_p.bind(a, x)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function `I_x(a, b)`. Like `jax.lax.betainc`."""
    return regularized_incomplete_beta_p.bind(a, b, x)


_random_gamma_grad = _up_and_broadcast(_grad_a_impl(_Mode.SAMPLE_DERIVATIVE))
_random_gamma_grad_compiled = jit(_random_gamma_grad)


def random_gamma_grad(a: Any, x: Any) -> Any:
    """The derivative in `a` of a `Gamma(a, 1)` draw `x` (along `igamma(a, x)` held fixed).
    Like `jax.lax.random_gamma_grad`: lax ops, not a primitive (compiled when called on
    Arrays, see the module docstring)."""
    if isinstance(a, core.Tracer) or isinstance(x, core.Tracer):
        return _random_gamma_grad(a, x)
    return _random_gamma_grad_compiled(a, x)


# ----------------------------------------------------------------------------- jvps (JAX's)


def _igamma_da(t, a, x, out):
    return ew.mul(t, igamma_grad_a(a, x))


def _igamma_dx(t, a, x, out):  # the gamma density: x^(a-1) e^-x / Gamma(a)
    log_density = ew.add(ew.neg(x), ew.mul(ew.sub(a, full_like(a, 1)), ew.log(x)))
    return ew.mul(t, ew.exp(ew.sub(log_density, lgamma(a))))


def _igammac_da(t, a, x, out):
    return ew.neg(_igamma_da(t, a, x, out))


def _igammac_dx(t, a, x, out):
    return ew.neg(_igamma_dx(t, a, x, out))


def _betainc_dab(t, a, b, x, out):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_dx(t, a, b, x, out):  # the beta density: x^(a-1) (1-x)^(b-1) / B(a, b)
    lbeta = ew.sub(ew.add(lgamma(a), lgamma(b)), lgamma(ew.add(a, b)))
    log_density = ew.add(
        ew.mul(ew.sub(b, _c(1, b)), ew.log1p(ew.neg(x))), ew.mul(ew.sub(a, _c(1, a)), ew.log(x))
    )
    return ew.mul(ew.exp(ew.sub(log_density, lbeta)), t)


core.jvp_rules.register(igamma_p, ew.partials_jvp(igamma_p, _igamma_da, _igamma_dx))
core.jvp_rules.register(igammac_p, ew.partials_jvp(igammac_p, _igammac_da, _igammac_dx))
core.jvp_rules.register(
    regularized_incomplete_beta_p,
    ew.partials_jvp(regularized_incomplete_beta_p, _betainc_dab, _betainc_dab, _betainc_dx),
)
# no jvp rule for igamma_grad_a, as in JAX 0.10.2; no transpose rules: none is linear
