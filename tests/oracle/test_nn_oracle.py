"""`didax.nn` against `jax.nn`: every activation under eval, jit, vmap and grad (values,
dtypes, weak types), `one_hot`, `standardize`, `glu`, `dot_product_attention` (masks, bias,
grouped heads, residual) and the initializers `stax` uses (same key, same numbers)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.grouped import Grouped
from helpers.oracle import EagerJax, JaxOracle, assert_matches, jax_quick

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

ACTIVATIONS = [
    "celu",
    "elu",
    "gelu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "leaky_relu",
    "log1mexp",
    "log_sigmoid",
    "mish",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "swish",
    "tanh",
]
# the kinks (0, +-1, 6) are where custom JVPs and `where` branches decide the gradient
XS = np.array([-40.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 6.0, 30.0], np.float32)


def _both(name: str, **kwargs):
    def fj(x):
        return getattr(jax.nn, name)(x, **kwargs)

    def fd(x):
        return getattr(didax.nn, name)(x, **kwargs)

    return fj, fd


def _input(name: str) -> np.ndarray:
    return np.abs(XS) + 0.25 if name == "log1mexp" else XS  # log(1 - e^-x): x > 0


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    """JAX's values, weak types and gradients under jit (see helpers/oracle.py), every
    activation's in one of a few programs instead of a compile each."""
    members = []
    for name in ACTIVATIONS:
        fj, _ = _both(name)
        x = _input(name)
        members.append((("value", name), fj, [x]))
        members.append((("scalar", name), fj, [1.5]))  # a Python scalar: weak-typed
        members.append((("rows", name), fj, [x.reshape(2, -1)]))
        members.append((("grad", name), jax.vmap(jax.grad(fj)), [x]))
    return JaxOracle.in_chunks(members, 20)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_eval_jit_vmap(name: str, oracle: JaxOracle) -> None:
    _, fd = _both(name)
    x, want = _input(name), oracle.get(("value", name))
    assert_matches(fd(x), want)
    assert_matches(fd(1.5), oracle.get(("scalar", name)))  # weak-typed, as in JAX
    assert_matches(didax.jit(fd)(x), want)
    assert_matches(didax.vmap(fd)(x.reshape(2, -1)), oracle.get(("rows", name)))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_grad(name: str, oracle: JaxOracle) -> None:
    _, fd = _both(name)
    x = _input(name)
    want = oracle.get(("grad", name))
    assert_matches(didax.vmap(didax.grad(fd))(x), want)
    assert_matches(didax.grad(lambda t: dnp.sum(fd(t)))(x), want)


OPTIONS = [
    ("gelu", {"approximate": False}),
    ("elu", {"alpha": 0.3}),
    ("celu", {"alpha": 2.0}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("squareplus", {"b": 1.0}),
]


def _with_grads(fj):
    return lambda x: (fj(x), jax.vmap(jax.grad(fj))(x))


# JAX's values and gradients of the options, one program (helpers/oracle.py)
JAX_OPTIONS = EagerJax(lambda: [(_with_grads(_both(n, **kw)[0]), (XS,), {}) for n, kw in OPTIONS])


@pytest.mark.parametrize(("name", "kwargs"), OPTIONS)
def test_activation_options(name: str, kwargs: dict) -> None:
    _, fd = _both(name, **kwargs)
    want, want_grad = JAX_OPTIONS.result(OPTIONS.index((name, kwargs)))
    assert_matches(fd(XS), want)
    assert_matches(didax.jit(fd)(XS), want)
    assert_matches(didax.vmap(didax.grad(fd))(XS), want_grad)


def test_gelu_exact_shows_erfc_as_jax() -> None:
    jaxpr = str(didax.make_jaxpr(lambda x: didax.nn.gelu(x, approximate=False))(XS))
    assert "erfc" in jaxpr and "erfc" in str(
        jax.make_jaxpr(lambda x: jax.nn.gelu(x, approximate=False))(XS)
    )


def test_integer_inputs_keep_jax_dtypes() -> None:
    ints = np.arange(-3, 4, dtype=np.int32)
    names = ["relu", "relu6", "gelu", "softplus", "elu", "hard_tanh", "leaky_relu"]
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    wants = jax_quick(lambda x: [_both(name)[0](x) for name in names], ints)
    for name, want in zip(names, wants, strict=True):
        assert_matches(_both(name)[1](ints), want)


ONE_HOT = [{}, {"dtype": np.int32}, {"axis": 0}, {"axis": -2}, {"dtype": np.float16}]
CLASSES = np.array([[0, 2, 5], [-1, 1, 3]], np.int32)  # 5 and -1 fall outside: all zeros


def _one_hot_and_vmap(kwargs):
    f = lambda x: jax.nn.one_hot(x, 4, **kwargs)  # noqa: E731
    return lambda x: (f(x), jax.vmap(f)(x))


JAX_ONE_HOT = EagerJax(lambda: [(_one_hot_and_vmap(kw), (CLASSES,), {}) for kw in ONE_HOT])


@pytest.mark.parametrize("kwargs", ONE_HOT)
def test_one_hot(kwargs: dict) -> None:
    x = CLASSES
    want, want_vmap = JAX_ONE_HOT.result(ONE_HOT.index(kwargs))
    assert_matches(didax.nn.one_hot(x, 4, **kwargs), want)
    jitted = didax.jit(lambda x: didax.nn.one_hot(x, 4, **kwargs))
    assert_matches(jitted(x), want)
    assert_matches(didax.vmap(lambda x: didax.nn.one_hot(x, 4, **kwargs))(x), want_vmap)


STANDARDIZE = [{}, {"axis": 0}, {"axis": (0, 1)}, {"algorithm": "stable"}, {"epsilon": 0.5}]
STANDARDIZED = np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5


def _standardize_and_grad(kwargs):
    f = lambda x: jax.nn.standardize(x, **kwargs)  # noqa: E731
    return lambda x: (f(x), jax.grad(lambda x: jnp.sum(f(x) ** 3))(x))


JAX_STANDARDIZE = EagerJax(
    lambda: [(_standardize_and_grad(kw), (STANDARDIZED,), {}) for kw in STANDARDIZE]
)


@pytest.mark.parametrize("kwargs", STANDARDIZE)
def test_standardize(kwargs: dict) -> None:
    x = STANDARDIZED
    want_value, want = JAX_STANDARDIZE.result(STANDARDIZE.index(kwargs))
    assert_matches(didax.nn.standardize(x, **kwargs), want_value)
    got = didax.grad(lambda x: dnp.sum(didax.nn.standardize(x, **kwargs) ** 3))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-3, atol=1e-4)


def test_standardize_given_mean_variance_and_bad_algorithm() -> None:
    x = np.linspace(-1, 2, 8, dtype=np.float32).reshape(2, 4)
    kw = {"mean": np.float32(0.5), "variance": np.float32(2.0)}
    assert_matches(didax.nn.standardize(x, **kw), jax.nn.standardize(x, **kw))
    with pytest.raises(ValueError, match="Unknown algorithm"):
        jax.nn.standardize(x, algorithm="slow")
    with pytest.raises(ValueError, match="Unknown algorithm"):
        didax.nn.standardize(x, algorithm="slow")


def test_glu_and_softmax_family() -> None:
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    axes = (-1, 0 if False else 1)

    def jax_side(x):  # one program (eagerly, each of JAX's operations is a compile of its own)
        glus = [jax.nn.glu(x, axis) for axis in axes]
        grad = jax.grad(lambda x: jnp.sum(jax.nn.glu(x) ** 2))(x)
        return glus, jax.nn.logmeanexp(x, axis=1), grad

    want_glus, want_logmeanexp, want_grad = jax_quick(jax_side, x)
    for axis, want in zip(axes, want_glus, strict=True):
        assert_matches(didax.nn.glu(x, axis), want)
    assert_matches(didax.nn.logmeanexp(x, axis=1), want_logmeanexp)
    assert_matches(didax.grad(lambda x: dnp.sum(didax.nn.glu(x) ** 2))(x), want_grad)
    with pytest.raises(AssertionError):
        jax.nn.glu(x[:, :3])
    with pytest.raises(AssertionError):
        didax.nn.glu(x[:, :3])


_RNG = np.random.default_rng(0)
Q = _RNG.normal(size=(2, 5, 4, 8)).astype(np.float32)
K = _RNG.normal(size=(2, 6, 2, 8)).astype(np.float32)
V = _RNG.normal(size=(2, 6, 2, 8)).astype(np.float32)
ATTENTION_CASES = {
    "plain": {},
    "causal": {"is_causal": True},
    "bias+mask": {
        "bias": _RNG.normal(size=(2, 4, 5, 6)).astype(np.float32),
        "mask": _RNG.random((2, 1, 5, 6)) > 0.3,
    },
    "window+lengths": {
        "local_window_size": (1, 2),
        "query_seq_lengths": np.array([3, 5], np.int32),
        "key_value_seq_lengths": np.array([6, 2], np.int32),
    },
    "scale+xla": {"scale": 0.1, "implementation": "xla"},
}


def _attention_and_grad(kw):
    f = lambda q: jax.nn.dot_product_attention(q, K, V, **kw)  # noqa: E731
    return lambda q: (f(q), jax.grad(lambda q: jnp.sum(f(q) ** 2))(q))


# JAX's outputs and gradients, one program (helpers/oracle.py: eager JAX would compile each
# of its operations on its own)
JAX_ATTENTION = EagerJax(
    lambda: [(_attention_and_grad(ATTENTION_CASES[c]), (Q,), {}) for c in sorted(ATTENTION_CASES)]
)


@pytest.mark.parametrize("case", sorted(ATTENTION_CASES))
def test_dot_product_attention(case: str) -> None:
    kw = ATTENTION_CASES[case]
    want_out, want = JAX_ATTENTION.result(sorted(ATTENTION_CASES).index(case))
    assert_matches(didax.nn.dot_product_attention(Q, K, V, **kw), want_out)
    got = didax.grad(lambda q: dnp.sum(didax.nn.dot_product_attention(q, K, V, **kw) ** 2))(Q)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_dot_product_attention_residual_3d_and_errors() -> None:
    out, res = didax.nn.dot_product_attention(Q, K, V, return_residual=True)
    want_out, want_res = jax.jit(jax.nn.dot_product_attention, static_argnames="return_residual")(
        Q, K, V, return_residual=True
    )
    assert_matches(out, want_out)
    assert_matches(res, want_res)
    assert_matches(
        didax.jit(didax.nn.dot_product_attention)(Q[0], K[0], V[0]),
        jax.jit(jax.nn.dot_product_attention)(Q[0], K[0], V[0]),
    )
    for bad in [(Q[:, :, :3], K, V), (Q, K, V[:, :5])]:
        with pytest.raises(ValueError):
            jax.nn.dot_product_attention(*bad)
        with pytest.raises(ValueError):
            didax.nn.dot_product_attention(*bad)


INITIALIZERS = [
    ("glorot_normal", ()),
    ("glorot_uniform", ()),
    ("xavier_normal", ()),
    ("he_normal", ()),
    ("he_uniform", ()),
    ("kaiming_normal", ()),
    ("lecun_normal", ()),
    ("lecun_uniform", ()),
    ("normal", (0.5,)),
    ("uniform", (2.0,)),
    ("truncated_normal", (0.3,)),
    ("constant", (-7.0,)),
    ("variance_scaling", (2.0, "fan_geo_avg", "normal")),
    ("variance_scaling", (1.0, "fan_out", "uniform")),
]


def _jax_draw(name: str, args: tuple):
    init = getattr(jax.nn.initializers, name)(*args)
    return lambda key: init(key, (3, 2, 4)), (jax.random.key(3),)


# JAX's draws as one `jax.jit` program (the session's options, as a jitted initializer gets);
# checked when grouped (2026-11-26): each draw has the bits of its own `jax.jit`.
JAX_DRAWS = Grouped(jax.jit, lambda: [_jax_draw(name, args) for name, args in INITIALIZERS])


@pytest.mark.parametrize(("name", "args"), INITIALIZERS)
def test_initializers_draw_jax_numbers(name: str, args: tuple) -> None:
    want = JAX_DRAWS.result(INITIALIZERS.index((name, args)))
    got = getattr(didax.nn.initializers, name)(*args)(didax.random.key(3), (3, 2, 4))
    assert_matches(got, want)


def test_initializer_zeros_ones_and_errors() -> None:
    for name in ["zeros", "ones"]:
        want = getattr(jax.nn.initializers, name)(jax.random.key(0), (2, 3), jnp.float16)
        got = getattr(didax.nn.initializers, name)(didax.random.key(0), (2, 3), dnp.float16)
        assert_matches(got, want)
    with pytest.raises(ValueError, match="in_axis"):
        jax.nn.initializers.glorot_normal()(jax.random.key(0), (3,))
    with pytest.raises(ValueError, match="in_axis"):
        didax.nn.initializers.glorot_normal()(didax.random.key(0), (3,))
    with pytest.raises(ValueError, match="invalid mode"):
        didax.nn.initializers.variance_scaling(1.0, "fan", "normal")(didax.random.key(0), (2, 2))


MASK = np.array([[True, False, True], [False, False, True]])
XM = np.array([[1.0, 2.0, 3.0], [0.0, 5.0, -1.0]], np.float32)
B = np.array([1.0, -1.0, 2.0], np.float32)


SOFTMAXES = [
    ("softmax", {"where": MASK}),
    ("log_softmax", {"where": MASK}),
    ("logsumexp", {"axis": 1, "where": MASK}),
    ("logsumexp", {"axis": 1, "b": B, "return_sign": True}),
    ("logsumexp", {"axis": 1, "b": B, "return_sign": True, "where": MASK}),
    ("logsumexp", {"axis": 0, "b": B[:2, None], "keepdims": True}),
]


def _masked_sum(lib, numpy, name, kwargs):
    return lambda x: numpy.sum(numpy.where(MASK, getattr(lib.nn, name)(x, **kwargs), 0))


def _softmax_and_grad(name, kwargs):
    f = lambda x: getattr(jax.nn, name)(x, **kwargs)  # noqa: E731
    if name == "logsumexp":
        return f
    return lambda x: (f(x), jax.grad(_masked_sum(jax, jnp, name, kwargs))(x))


# JAX's values and gradients, one program (helpers/oracle.py)
JAX_SOFTMAXES = EagerJax(lambda: [(_softmax_and_grad(n, kw), (XM,), {}) for n, kw in SOFTMAXES])


@pytest.mark.parametrize(("name", "kwargs"), SOFTMAXES)
def test_softmax_family_where_b_and_sign(name: str, kwargs: dict) -> None:
    index = next(i for i, case in enumerate(SOFTMAXES) if case[0] == name and case[1] is kwargs)
    want = JAX_SOFTMAXES.result(index)
    if name != "logsumexp":
        want, want_grad = want
    got = getattr(didax.nn, name)(XM, **kwargs)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert_matches(g, w)
    if name == "logsumexp":
        return
    # masked-out entries are constants (0 or -inf): the gradient is taken over the others
    got_grad = didax.grad(_masked_sum(didax, dnp, name, kwargs))(XM)
    np.testing.assert_allclose(np.asarray(got_grad), np.asarray(want_grad), rtol=1e-5, atol=1e-6)
