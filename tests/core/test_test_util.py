"""didax.test_util: check_grads as JAX's (same verdicts on the same functions), and
check_rules naming the wrong rule of a user primitive."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import core, test_util

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax_test_util = pytest.importorskip("jax.test_util")

# --------------------------------------------------------------------------- check_grads


def _pair(body):
    return body(dnp), body(jnp)


SMOOTH = {
    "sin_mul": lambda m: lambda x, y: m.sin(x) * y,
    "tanh_sum": lambda m: lambda x: m.sum(m.tanh(x) ** 2),
    "exp_dot": lambda m: lambda x, w: m.exp(m.dot(w, x)),
}
ARGS = {
    "sin_mul": (np.float32(0.7), np.float32(-1.3)),
    "tanh_sum": (np.array([0.1, -0.5, 2.0], np.float32),),
    "exp_dot": (np.array([0.2, 0.3], np.float32), np.array([[0.5, -0.1], [0.3, 0.2]], np.float32)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
@pytest.mark.parametrize("order", [1, 2])
def test_check_grads_passes_where_jax_passes(name, order):
    f_dx, f_jax = _pair(SMOOTH[name])
    jax_test_util.check_grads(f_jax, ARGS[name], order=order)
    test_util.check_grads(f_dx, ARGS[name], order=order)


def _wrong_derivative(lib):
    @lib.custom_jvp
    def f(x):
        return lib.numpy.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 2.0 * t * lib.numpy.cos(x)  # off by a factor of two

    return f


@pytest.mark.parametrize("modes", [("fwd",), ("rev",)])
def test_check_grads_fails_where_jax_fails(modes):
    x = (np.float32(0.4),)
    with pytest.raises(AssertionError):
        jax_test_util.check_grads(_wrong_derivative(jax), x, order=1, modes=modes)
    with pytest.raises(AssertionError, match="JVP|VJP"):
        test_util.check_grads(_wrong_derivative(didax), x, order=1, modes=modes)


def test_check_grads_second_order_catches_a_wrong_second_derivative():
    # sin's rule is right, but the cos it uses has a rule with the wrong sign: only the
    # second derivative goes through that rule
    @didax.custom_jvp
    def cos(x):
        return dnp.cos(x)

    @cos.defjvp
    def cos_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return cos(x), t * dnp.sin(x)  # should be -sin x

    @didax.custom_jvp
    def sin(x):
        return dnp.sin(x)

    @sin.defjvp
    def sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin(x), t * cos(x)

    x = (np.float32(0.9),)
    test_util.check_grads(sin, x, order=1)
    with pytest.raises(AssertionError, match="JVP of JVP"):
        test_util.check_grads(sin, x, order=2, modes=("fwd",))
    with pytest.raises(AssertionError, match="VJP of VJP"):
        test_util.check_grads(sin, x, order=2, modes=("rev",))


def _scaled_derivative(lib, factor):
    @lib.custom_jvp
    def f(x):
        return lib.numpy.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), factor * t * lib.numpy.cos(x)

    return f


def _verdict(check, *args, **kwargs):
    try:
        check(*args, **kwargs)
    except AssertionError:
        return "fails"
    return "passes"


# A Python float is float32 without x64: JAX's float32 tolerance (2e-3) applies, not 1e-5
@pytest.mark.parametrize(
    "case",
    [
        ("sin_order2", lambda lib: lib.numpy.sin, (0.3,), 2),
        ("sin_order2_f32", lambda lib: lib.numpy.sin, (np.float32(0.3),), 2),
        ("off_by_1e-4", lambda lib: _scaled_derivative(lib, 1.0001), (0.3,), 1),
        ("off_by_1e-2", lambda lib: _scaled_derivative(lib, 1.01), (0.3,), 1),
    ],
    ids=lambda c: c[0],
)
def test_check_grads_tolerances_as_jax(case):
    _, make, args, order = case
    want = _verdict(jax_test_util.check_grads, make(jax), args, order=order)
    assert _verdict(test_util.check_grads, make(didax), args, order=order) == want
    assert want == ("fails" if case[0] == "off_by_1e-2" else "passes")


# JAX searches `modes` with `in`: a string, a list, "lin", or values it does not know
@pytest.mark.parametrize(
    "modes", ["rev", ["fwd"], ("lin",), ("lin", "rev"), ("sideways",), ()], ids=repr
)
@pytest.mark.parametrize("factor", [1.0, 2.0], ids=["right", "wrong"])
def test_check_grads_modes_as_jax(modes, factor):
    args = (np.float32(0.4),)
    want = _verdict(
        jax_test_util.check_grads, _scaled_derivative(jax, factor), args, 2, modes=modes
    )
    got = _verdict(test_util.check_grads, _scaled_derivative(didax, factor), args, 2, modes=modes)
    assert got == want


# --------------------------------------------------------------------------- check_rules


def make_multiply_add(broken: str = "") -> core.Primitive:
    """x * y + z as a fresh primitive with all six rules; `broken` names one rule to get wrong."""
    p = core.Primitive(f"multiply_add_{broken or 'ok'}")

    def bind(x, y, z):
        return p.bind(x, y, z)

    @core.impl_rules.register(p)
    def _impl(x, y, z):
        return [np.asarray(x * y + z)]

    @core.abstract_eval_rules.register(p)
    def _abstract_eval(x, y, z):
        dtype = np.dtype(np.int32) if broken == "abstract_eval" else x.dtype
        return [core.ShapedArray(x.shape, dtype)]

    def zeros_if_symbolic(t):
        return dnp.zeros(t.aval.shape, t.aval.dtype) if isinstance(t, core.Zero) else t

    @core.jvp_rules.register(p)
    def _jvp(primals, tangents):
        (x, y, z), (x_dot, y_dot, z_dot) = primals, [zeros_if_symbolic(t) for t in tangents]
        if broken == "jvp":
            y_dot = dnp.zeros_like(y_dot)  # forgets d/dy
        return [bind(x, y, z)], [bind(x_dot, y, bind(x, y_dot, z_dot))]

    @core.transpose_rules.register(p)
    def _transpose(cts, x, y, z):
        (ct,) = cts
        zeros = dnp.zeros(ct.shape, ct.dtype)
        ct_z = ct if isinstance(z, core.UndefinedPrimal) else None
        if broken == "transpose" and ct_z is not None:
            ct_z = 2.0 * ct_z
        if isinstance(x, core.UndefinedPrimal):
            return [bind(ct, y, zeros), None, ct_z]
        if isinstance(y, core.UndefinedPrimal):
            return [None, bind(x, ct, zeros), ct_z]
        return [None, None, ct_z]

    @core.vmap_rules.register(p)
    def _vmap(axis_size, vals, dims):
        moved = [
            dnp.broadcast_to(v, (axis_size, *v.shape))
            if d is core.NOT_MAPPED
            else dnp.transpose(v, (d, *(i for i in range(v.ndim) if i != d)))
            for v, d in zip(vals, dims, strict=True)
        ]
        if broken == "vmap":
            moved[2] = dnp.broadcast_to(moved[2][:1], moved[2].shape)  # uses example 0 only
        return [bind(*moved)], [0]

    @core.lowering_rules.register(p)
    def _lowering(ctx, x, y, z):
        if broken == "lowering":
            return [ctx.hlo.add(ctx.hlo.multiply(x, y), x)]
        return [ctx.hlo.add(ctx.hlo.multiply(x, y), z)]

    return p


A = np.array([1.0, 2.0, 3.0], np.float32)
B = np.array([0.5, -1.0, 4.0], np.float32)
C = np.array([0.25, 0.0, -2.0], np.float32)


def test_check_rules_passes_and_lists_what_it_checked():
    checks = test_util.check_rules(make_multiply_add(), A, B, C)
    assert [c.rule for c in checks] == ["abstract_eval", "jvp", "transpose", "vmap", "lowering"]
    text = str(checks)
    # with the others held, x*y+z is linear jointly in {x, z} and in {y, z}; in x alone, or
    # z alone, it is affine (z = C != 0, x*y != 0), and in {x, y} quadratic
    assert "linear in (0, 2), (1, 2)\n" in text
    assert "26 in_axes patterns" in text


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (
            "abstract_eval",
            r"(?s)abstract_eval rule is wrong for output 0.*returns f32\[3\].*says i32\[3\]",
        ),
        ("jvp", r"jvp rule is wrong for input 1"),
        ("transpose", r"transpose rule is wrong for linear inputs \(0, 2\)"),
        ("vmap", r"vmap rule is wrong for in_axes"),
        ("lowering", r"lowering rule is wrong for output 0"),
    ],
)
def test_check_rules_names_the_wrong_rule(broken, message):
    with pytest.raises(AssertionError, match=message) as info:
        test_util.check_rules(make_multiply_add(broken), A, B, C)
    text = str(info.value)
    assert text.startswith(f"check_rules(multiply_add_{broken})")
    if broken != "abstract_eval":
        assert "expected:" in text and "got:" in text


def test_check_rules_reports_a_jvp_rule_that_cannot_take_symbolic_zeros():
    p = core.Primitive("twice")
    core.impl_rules.register(p, lambda x: [2 * x])
    core.abstract_eval_rules.register(p, lambda x: [core.ShapedArray(x.shape, x.dtype)])

    @core.jvp_rules.register(p)
    def _jvp(primals, tangents):
        return [p.bind(*primals)], [tangents[0] * 2.0 + primals[0] * 0.0]

    checks = test_util.check_rules(p, A)  # one input: its tangent is never a Zero
    assert [c.rule for c in checks] == ["abstract_eval", "jvp"]

    q = core.Primitive("twice_sum")
    core.impl_rules.register(q, lambda x, y: [2 * x + y])
    core.abstract_eval_rules.register(q, lambda x, y: [core.ShapedArray(x.shape, x.dtype)])

    @core.jvp_rules.register(q)
    def _jvp_q(primals, tangents):
        x_dot, y_dot = tangents
        return [q.bind(*primals)], [x_dot.__mul__(2.0) + y_dot]  # fails on a core.Zero

    with pytest.raises(AssertionError, match="jvp rule failed for input 0.*symbolic zeros"):
        test_util.check_rules(q, A, B)


def _cube(name: str) -> core.Primitive:
    p = core.Primitive(name)
    core.impl_rules.register(p, lambda x: [x * x * x])
    core.abstract_eval_rules.register(p, lambda x: [core.ShapedArray(x.shape, x.dtype)])
    return p


def test_check_rules_says_what_is_wrong_with_a_jvp_rule_of_the_wrong_shape():
    """A learner's slips in the shape of a rule get a sentence about the rule, not the
    engine's error from deep inside jvp."""
    no_lists = _cube("cube_pair")
    core.jvp_rules.register(
        no_lists, lambda primals, tangents: (no_lists.bind(*primals), 3 * tangents[0])
    )
    message = r"jvp rule must return two lists, \[outputs\] and \[output tangents\]; "
    with pytest.raises(AssertionError, match=message + r"it returned \(f32\[3\], f32\[3\]\)"):
        test_util.check_rules(no_lists, A)

    summed = _cube("cube_summed")
    core.jvp_rules.register(
        summed,
        lambda primals, tangents: (
            [summed.bind(*primals)],
            [dnp.sum(3 * primals[0] ** 2 * tangents[0])],
        ),
    )
    message = r"tangent of output 0 is f32\[\], but the output is f32\[3\]"
    with pytest.raises(AssertionError, match=message):
        test_util.check_rules(summed, A)


def test_check_rules_says_when_a_vmap_rule_names_an_axis_the_output_lacks():
    p = core.Primitive("sum_last_t")
    core.impl_rules.register(p, lambda x: [np.sum(x, axis=-1)])
    core.abstract_eval_rules.register(p, lambda x: [core.ShapedArray(x.shape[:-1], x.dtype)])
    core.vmap_rules.register(p, lambda n, vals, dims: ([p.bind(vals[0])], [dims[0]]))
    message = (
        r"vmap rule says output 0 has its batch axis at 2, but that output is f32\[2,3\], "
        r"with 2 axes: .*the example's own output is f32\[2\]"
    )
    with pytest.raises(AssertionError, match=message):
        test_util.check_rules(p, np.arange(6.0).reshape(2, 3))


def test_check_rules_rejects_a_transpose_rule_of_a_nonlinear_primitive():
    p = core.Primitive("square_t")
    core.impl_rules.register(p, lambda x: [x * x])
    core.transpose_rules.register(p, lambda cts, x: [cts[0]])
    with pytest.raises(AssertionError, match="not linear in any set of its inputs"):
        test_util.check_rules(p, A)


# --------------------------------------------------------------------------- complex values

Z = np.array([1 + 2j, -0.5 + 0.3j], np.complex64)

COMPLEX_SMOOTH = {
    "holomorphic": lambda m: lambda z: m.sin(z) * z,
    "real_valued": lambda m: lambda z: m.abs(z) ** 2 + m.real(z),
    "conj_mix": lambda m: lambda z: m.conj(z) * m.exp(z),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_SMOOTH))
def test_check_grads_on_complex_inputs_as_jax(name):
    f_dx, f_jax = _pair(COMPLEX_SMOOTH[name])
    jax_test_util.check_grads(f_jax, (Z,), order=1)
    test_util.check_grads(f_dx, (Z,), order=1)


def test_check_rules_of_the_complex_primitives():
    from didax.primitives import elementwise as ew

    x, y = np.array([0.5, -1.0, 2.0], np.float32), np.array([1.5, 0.25, -2.0], np.float32)
    checks = test_util.check_rules(ew.complex_p, x, y)
    assert [c.rule for c in checks] == ["abstract_eval", "jvp", "transpose", "vmap", "lowering"]
    test_util.check_rules(ew.conj_p, x, input_dtype=np.dtype(np.float32))
    test_util.check_rules(ew.atan2_p, x, y + 3)


def test_check_rules_catches_a_conjugated_transpose():
    # `complex(x, y)`'s transpose by JAX's convention is (real(ct), -imag(ct)); a rule that
    # conjugates (real(ct), imag(ct)) breaks the dot-product identity
    prim = core.Primitive("my_complex")
    prim.def_impl(lambda x, y: [(x + 1j * y).astype(np.complex64)])
    prim.def_abstract_eval(lambda x, y: [x.update(dtype=np.dtype(np.complex64))])
    core.transpose_rules.register(
        prim, lambda cts, x, y: [didax.lax.real(cts[0]), didax.lax.imag(cts[0])]
    )
    x = np.array([0.5, -1.0], np.float32)
    with pytest.raises(AssertionError, match="the transpose rule is wrong"):
        test_util.check_rules(prim, x, x)
