"""The exponentially scaled modified Bessel functions `bessel_i0e`, `bessel_i1e` and the
Hurwitz zeta function `zeta`. Like `jax.lax.bessel_i0e` ...

Layer 2, after `special` (whose deferred SciPy loader `zeta` and `bessel_i1e` share).
`bessel_i0e` is Cephes' Chebyshev series, as JAX writes it (its lowering emits the same
recurrence as StableHLO ops, its eager impl runs it in NumPy); `bessel_i1e` and `zeta` are
SciPy's functions for eager values and CHLO's for compiled ones, as JAX lowers them. JVPs are
JAX's: `t (i1e(x) - sign(x) i0e(x))` and the `safe_x` form for `i1e`; `zeta` has none, as
in JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.primitives import comparison, elementwise, rules, vmap_helpers
from didax.primitives.elementwise.arithmetic import _const, _full, _unary_primitive
from didax.primitives.special import _scipy_impl, _scipy_special
from didax.runtime import client

_I0E_A = (
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)  # fmt: skip
_I0E_B = (
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)  # fmt: skip
_I0E_A64 = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    *_I0E_A,
)  # fmt: skip
_I0E_B64 = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    *_I0E_B,
)  # fmt: skip


def _chebyshev(x: Any, coefficients: tuple, ops: Any) -> Any:
    # Clenshaw's recurrence, as JAX's `evaluate_chebyshev_polynomial`
    b0 = b1 = b2 = ops.const(0.0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = ops.add(ops.sub(ops.mul(x, b1), b2), ops.const(c))
    return ops.mul(ops.const(0.5), ops.sub(b0, b2))


def _i0e(x: Any, ops: Any, wide: bool) -> Any:
    a, b = (_I0E_A64, _I0E_B64) if wide else (_I0E_A, _I0E_B)
    x = ops.abs(x)
    small = _chebyshev(ops.sub(ops.mul(ops.const(0.5), x), ops.const(2.0)), a, ops)
    large = ops.div(
        _chebyshev(ops.sub(ops.div(ops.const(32.0), x), ops.const(2.0)), b, ops), ops.sqrt(x)
    )
    return ops.select(ops.le8(x), small, large)


class _NumPyOps:  # the series in NumPy, in the operand's dtype
    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.add, self.sub, self.mul, self.div = np.add, np.subtract, np.multiply, np.divide
        self.abs, self.sqrt = np.abs, np.sqrt

    def const(self, c: float) -> Any:
        return np.asarray(c, self.dtype)

    def le8(self, x: Any) -> Any:
        return x <= 8.0

    def select(self, pred: Any, a: Any, b: Any) -> Any:
        return np.where(pred, a, b)


class _HloOps:  # the series as StableHLO ops, for the lowering
    def __init__(self, ctx: core.LoweringContext, aval: core.ShapedArray) -> None:
        self.ctx, self.aval, hlo = ctx, aval, ctx.hlo
        self.add, self.sub, self.mul, self.div = hlo.add, hlo.subtract, hlo.multiply, hlo.divide
        self.abs, self.sqrt = hlo.abs, hlo.sqrt

    def const(self, c: float) -> Any:
        return rules.broadcast_constant(self.ctx, c, self.aval)

    def le8(self, x: Any) -> Any:
        return rules.compare(self.ctx, x, self.const(8.0), "LE", self.aval.dtype)

    def select(self, pred: Any, a: Any, b: Any) -> Any:
        return self.ctx.hlo.select(pred, a, b)


def _i0e_numpy(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    wide = x.dtype == np.float64
    work = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)  # f16: upcast
    with np.errstate(all="ignore"):
        return np.asarray(_i0e(work, _NumPyOps(work.dtype), wide), x.dtype)


bessel_i0e_p = _unary_primitive("bessel_i0e", _i0e_numpy)
bessel_i1e_p = core.Primitive("bessel_i1e")


def bessel_i0e(x: Any) -> Any:
    """`exp(-|x|) I0(x)`, elementwise. Like `jax.lax.bessel_i0e`."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x: Any) -> Any:
    """`exp(-|x|) I1(x)`, elementwise. Like `jax.lax.bessel_i1e`."""
    return bessel_i1e_p.bind(x)


def _i1e_numpy(x: np.ndarray) -> np.ndarray:
    # i1e is odd: a signed zero keeps its sign, as XLA's (SciPy's i1e(-0.0) is +0.0)
    return np.where(x == 0, x, _scipy_special().i1e(x))


core.impl_rules.register(bessel_i1e_p, _scipy_impl(_i1e_numpy, "bessel_i1e"))
core.abstract_eval_rules.register(bessel_i1e_p, rules.float_aval("bessel_i1e"))
core.vmap_rules.register(bessel_i1e_p, rules.vectorized_vmap(bessel_i1e))


def _i0e_partial(t, x, y):  # d i0e = (i1e(x) - sign(x) i0e(x)) dx
    return elementwise.mul(
        t, elementwise.sub(bessel_i1e(x), elementwise.mul(elementwise.sign(x), y))
    )


def _i1e_partial(t, x, y):
    aval = core.get_aval(x)
    eps = np.finfo(aval.dtype).eps if aval.dtype != dtypes.bfloat16 else 2.0**-7
    not_tiny = comparison.gt(elementwise.abs(x), _const(eps, x))
    safe_x = comparison.select_n(not_tiny, _full(_const(eps, x), aval.shape), x)
    i0e = bessel_i0e(safe_x)
    slope = elementwise.add(elementwise.sign(safe_x), elementwise.integer_pow(safe_x, -1))
    dy_dx = elementwise.sub(i0e, elementwise.mul(y, slope))
    dy_dx = comparison.select_n(not_tiny, _full(_const(0.5, x), aval.shape), dy_dx)
    return elementwise.mul(t, dy_dx)


core.jvp_rules.register(bessel_i0e_p, elementwise.partials_jvp(bessel_i0e_p, _i0e_partial))
core.jvp_rules.register(bessel_i1e_p, elementwise.partials_jvp(bessel_i1e_p, _i1e_partial))
# no transpose rules: not linear (NONLINEAR in tests/lax/test_rule_coverage.py)


@core.lowering_rules.register(bessel_i0e_p)
def _bessel_i0e_lowering(ctx, x):
    (aval,) = ctx.avals_in
    if aval.dtype in (np.float32, np.float64):
        return [_i0e(x, _HloOps(ctx, aval), aval.dtype == np.float64)]
    wide = aval.update(dtype=np.dtype(np.float32))  # f16, bf16: in float32, as JAX
    up = ctx.hlo.convert(ctx.tensor_type(wide), x)
    return [ctx.hlo.convert(ctx.tensor_type(aval), _i0e(up, _HloOps(ctx, wide), False))]


@core.lowering_rules.register(bessel_i1e_p)
def _bessel_i1e_lowering(ctx, x):
    return [client.runtime().chlo.bessel_i1e(x)]


# ----------------------------------------------------------------------------- zeta

zeta_p = core.Primitive("zeta")


def zeta(x: Any, q: Any) -> Any:
    """The Hurwitz zeta function `sum_k (k + q)^-x`. Like `jax.lax.zeta`."""
    return zeta_p.bind(x, q)


def _zeta_impl(x: np.ndarray, q: np.ndarray) -> list:
    x, q = np.asarray(x), np.asarray(q)
    with np.errstate(all="ignore"):
        out = _scipy_special().zeta(x.astype(np.float64), q.astype(np.float64))
        # where XLA's zeta differs from SciPy's: at q = inf (NaN, but inf at x = 1), at the
        # poles q = 0, -1, ... (inf at x = 1 and at even integers x, else NaN), and at x = inf
        # for q <= 1 (NaN)
        pole = (q <= 0) & (np.floor(q) == q)
        even = np.isfinite(x) & (np.floor(x / 2) * 2 == x)
        out = np.where(np.isposinf(q), np.where(x == 1, np.inf, np.nan), out)
        out = np.where(pole, np.where(even | (x == 1), np.inf, np.nan), out)
        out = np.where((q <= 1) & np.isinf(x), np.nan, out)
    return [np.asarray(out, x.dtype)]


core.impl_rules.register(zeta_p, rules.validated_impl(zeta_p, _zeta_impl))
core.abstract_eval_rules.register(zeta_p, rules.naryop_aval("zeta", "float"))


# no jvp rule: JAX 0.10.2 has none ("Differentiation rule for 'zeta' not implemented")
core.vmap_rules.register(zeta_p, vmap_helpers.broadcasting_vmap(zeta))


@core.lowering_rules.register(zeta_p)
def _zeta_lowering(ctx, x, q):
    x, q = rules.broadcast_operands(ctx, (x, q))
    return [client.runtime().chlo.zeta(x, q)]
