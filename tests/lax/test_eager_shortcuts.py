"""The eager shortcuts (`core.eager_rules`) agree with the impl rules they skip, decline what
they must leave to `bind`, and carry the eager hot path (jnp.sin, x * y) on their own."""

from __future__ import annotations

import itertools
import warnings

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import core, dtypes
from didax.array import Array
from didax.primitives import elementwise as ew

SHORTCUT_PRIMS = sorted(
    (p for p in vars(ew).values() if isinstance(p, core.Primitive) and p in core.eager_rules),
    key=lambda p: p.name,
)
DTYPES = ["float32", "float16", "bfloat16", "int32", "int8", "uint8", "uint32", "bool"]


def _values(dtype: str) -> list[Array]:
    dt = np.dtype(dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    base = np.array([[0.5, 1.0, 2.0], [3.0, 0.25, 1.5]])
    if dt.kind in "iub":
        base = np.array([[1, 2, 3], [0, 5, 1]])
    arr = base.astype(dt)
    return [Array(arr), Array(arr[0]), Array(arr[0, 0]), Array(arr[:1])]


def _slow(prim: core.Primitive, operands: tuple) -> tuple[object, BaseException | None]:
    try:
        return core.eval_primitive(prim, operands, {})[0], None
    except Exception as e:  # noqa: BLE001 - compared with the shortcut's behaviour
        return None, e


def test_every_elementwise_family_primitive_has_a_shortcut() -> None:
    names = {p.name for p in SHORTCUT_PRIMS}
    assert {"sin", "cos", "exp", "log", "neg", "add", "sub", "mul", "max", "min", "pow"} <= names


@pytest.mark.parametrize("prim", SHORTCUT_PRIMS, ids=lambda p: p.name)
@pytest.mark.parametrize("dtype", DTYPES)
def test_shortcut_agrees_with_impl_rule(prim: core.Primitive, dtype: str) -> None:
    """Where the shortcut accepts, it gives the impl rule's value, dtype, shape and weak type;
    where it declines, `bind` takes the ordinary path."""
    vals = _values(dtype)
    arity = 1 if core.eager_rules[prim].__code__.co_argcount == 1 else 2
    if arity == 1:
        cases = [(v,) for v in vals] + [(Array(vals[0]._value, True),)]
    else:
        weak = Array(vals[2]._value, True)
        cases = list(itertools.product(vals, vals)) + [
            (vals[0], weak),
            (weak, weak),
            (vals[0], 2.0),
            (3, vals[1]),
            (vals[1], 2),
        ]
    accepted = 0
    for operands in cases:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                fast = core.eager_rules[prim](*operands)
            except Exception as e:  # noqa: BLE001
                fast, fast_error = None, e
            else:
                fast_error = None
            slow, slow_error = _slow(prim, operands)
        if fast is NotImplemented:
            continue
        accepted += 1
        if slow_error is not None or fast_error is not None:
            assert type(fast_error) is type(slow_error), (operands, fast_error, slow_error)
            continue
        assert type(fast) is Array
        assert fast.aval == slow.aval, (operands, fast.aval, slow.aval)
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        well_typed = _slow(prim, (vals[0],) * arity)[1] is None
    if well_typed and dtype != "bool":  # every well-typed dtype takes the shortcut
        assert accepted, f"{prim.name} never took the shortcut for {dtype}"


@pytest.mark.parametrize(
    "operands",
    [
        (np.ones((2, 3), np.float32), np.ones((3,), np.float32)),  # ranks differ: jnp's broadcast
        (np.ones(3, np.float32), np.ones(3, np.int32)),  # dtypes differ: promotion
        (np.ones(3, np.int32), 2.0),  # scalar of another kind
        (np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)),  # incompatible
    ],
)
def test_shortcut_declines_what_needs_promotion_or_broadcasting(operands: tuple) -> None:
    args = [Array(v) if isinstance(v, np.ndarray) else v for v in operands]
    assert core.eager_rules[ew.mul_p](*args) is NotImplemented


def test_declined_calls_still_raise_jax_errors() -> None:
    with pytest.raises(TypeError, match=r"\(2, 3\), \(3, 2\)"):
        jnp.multiply(jnp.ones((2, 3)), jnp.ones((3, 2)))
    with pytest.raises(TypeError, match="mul requires arguments to have the same dtypes"):
        didax.lax.mul(jnp.ones(3), jnp.ones(3, jnp.int32))
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        didax.lax.sin(jnp.ones(3, jnp.int32))


def test_shortcut_declines_while_tracing() -> None:
    x = jnp.asarray(np.float32(0.5))
    assert core.eager_rules[ew.sin_p](x) is not NotImplemented
    with core.new_main(core.EvalTrace, dynamic=True):
        assert core.eager_rules[ew.sin_p](x) is NotImplemented
        assert core.eager_rules[ew.mul_p](x, x) is NotImplemented
    c = jnp.ones(3)
    jaxpr = didax.make_jaxpr(lambda y: jnp.sin(c) * y)(jnp.ones(3))
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "mul"]
    assert len(jaxpr.consts) == 1


def test_hot_path_skips_the_interpreters(monkeypatch: pytest.MonkeyPatch) -> None:
    """jnp.sin on an Array and `x * y + x` on Arrays never reach `bind`."""

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("the eager hot path reached bind")

    x = jnp.asarray(np.float32(0.5))
    a, b = jnp.arange(4.0), jnp.ones(4)
    monkeypatch.setattr(core, "bind", boom)
    assert float(jnp.sin(x)) == pytest.approx(np.sin(0.5))
    np.testing.assert_allclose(np.asarray(a * b + a), 2 * np.arange(4.0))
    np.testing.assert_allclose(np.asarray(2.0 * a - 1.0), 2 * np.arange(4.0) - 1)
    assert (a * 2.0).dtype == np.float32 and not (a * 2.0).weak_type


def test_primitive_bind_is_the_one_eager_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lax.sin(x)` / `prim.bind` on eager Arrays take the eager rule in `Primitive.bind`,
    before the eval interpreter; a primitive without one reaches the interpreter."""
    calls: list[str] = []
    real = core.eval_primitive

    def counted(prim: core.Primitive, *args: object) -> object:
        calls.append(prim.name)
        return real(prim, *args)

    monkeypatch.setattr(core, "eval_primitive", counted)
    x = jnp.asarray(np.float32(0.5))
    assert float(didax.lax.sin(x)) == pytest.approx(np.sin(0.5))
    assert float(ew.mul_p.bind(x, x)) == pytest.approx(0.25)
    assert calls == []
    didax.lax.reshape(x, (1,))  # no eager rule: the eval interpreter runs it
    assert calls == ["reshape"]


def test_eager_results_build_their_aval_lazily() -> None:
    a = jnp.ones(3) * 2.0
    assert a._aval is None
    assert a.aval == core.ShapedArray((3,), np.float32, False)
    assert a._aval is a.aval  # built once
    s = jnp.asarray(np.float32(1.5))
    assert s.shape == () and np.asarray(s).shape == () and isinstance(np.asarray(s), np.ndarray)


def test_an_eager_product_sizes_its_operands_without_numpy_reductions(monkeypatch) -> None:
    # `dot_general`'s impl multiplies sizes with `math.prod`: `np.prod` on a short list
    # was a third of an eager 3x3 matmul (34 -> 23 us of CPU time, issue 26).
    x = jnp.asarray(np.arange(12.0, dtype=np.float32).reshape(2, 3, 2))
    expected = np.einsum("bij,bjk->bik", np.asarray(x), np.asarray(x).transpose(0, 2, 1))

    def refused(*args, **kwargs):
        raise AssertionError("np.prod in the eager product")

    monkeypatch.setattr(np, "prod", refused)
    np.testing.assert_allclose(np.asarray(jnp.matmul(x, x.transpose(0, 2, 1))), expected)
