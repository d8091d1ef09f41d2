"""`didax.nn` against `jax.nn`: every activation under eval, jit, vmap and grad (values,
dtypes, weak types), `one_hot`, `standardize`, `glu`, `dot_product_attention` (masks, bias,
grouped heads, residual) and the initializers `stax` uses (same key, same numbers)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.grouped import Grouped
from helpers.oracle import JaxOracle, assert_matches

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


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("gelu", {"approximate": False}),
        ("elu", {"alpha": 0.3}),
        ("celu", {"alpha": 2.0}),
        ("leaky_relu", {"negative_slope": 0.2}),
        ("squareplus", {"b": 1.0}),
    ],
)
def test_activation_options(name: str, kwargs: dict) -> None:
    fj, fd = _both(name, **kwargs)
    want = jax.jit(fj)(XS)
    assert_matches(fd(XS), want)
    assert_matches(didax.jit(fd)(XS), want)
    assert_matches(didax.vmap(didax.grad(fd))(XS), jax.jit(jax.vmap(jax.grad(fj)))(XS))


def test_gelu_exact_shows_erfc_as_jax() -> None:
    jaxpr = str(didax.make_jaxpr(lambda x: didax.nn.gelu(x, approximate=False))(XS))
    assert "erfc" in jaxpr and "erfc" in str(
        jax.make_jaxpr(lambda x: jax.nn.gelu(x, approximate=False))(XS)
    )


def test_integer_inputs_keep_jax_dtypes() -> None:
    ints = np.arange(-3, 4, dtype=np.int32)
    for name in ["relu", "relu6", "gelu", "softplus", "elu", "hard_tanh", "leaky_relu"]:
        fj, fd = _both(name)
        assert_matches(fd(ints), fj(ints))


@pytest.mark.parametrize(
    "kwargs", [{}, {"dtype": np.int32}, {"axis": 0}, {"axis": -2}, {"dtype": np.float16}]
)
def test_one_hot(kwargs: dict) -> None:
    x = np.array([[0, 2, 5], [-1, 1, 3]], np.int32)  # 5 and -1 fall outside: all zeros
    assert_matches(didax.nn.one_hot(x, 4, **kwargs), jax.nn.one_hot(x, 4, **kwargs))
    jitted = didax.jit(lambda x: didax.nn.one_hot(x, 4, **kwargs))
    assert_matches(jitted(x), jax.nn.one_hot(x, 4, **kwargs))
    assert_matches(
        didax.vmap(lambda x: didax.nn.one_hot(x, 4, **kwargs))(x),
        jax.vmap(lambda x: jax.nn.one_hot(x, 4, **kwargs))(x),
    )


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"axis": 0}, {"axis": (0, 1)}, {"algorithm": "stable"}, {"epsilon": 0.5}],
)
def test_standardize(kwargs: dict) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5
    assert_matches(didax.nn.standardize(x, **kwargs), jax.nn.standardize(x, **kwargs))
    want = jax.grad(lambda x: jnp.sum(jax.nn.standardize(x, **kwargs) ** 3))(x)
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
    for axis in (-1, 0 if False else 1):
        assert_matches(didax.nn.glu(x, axis), jax.nn.glu(x, axis))
    assert_matches(didax.nn.logmeanexp(x, axis=1), jax.nn.logmeanexp(x, axis=1))
    assert_matches(
        didax.grad(lambda x: dnp.sum(didax.nn.glu(x) ** 2))(x),
        jax.grad(lambda x: jnp.sum(jax.nn.glu(x) ** 2))(x),
    )
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


@pytest.mark.parametrize("case", sorted(ATTENTION_CASES))
def test_dot_product_attention(case: str) -> None:
    kw = ATTENTION_CASES[case]
    # JAX under one jit: eager JAX would compile each of its operations on its own
    want_out = jax.jit(lambda q: jax.nn.dot_product_attention(q, K, V, **kw))(Q)
    assert_matches(didax.nn.dot_product_attention(Q, K, V, **kw), want_out)
    want = jax.jit(jax.grad(lambda q: jnp.sum(jax.nn.dot_product_attention(q, K, V, **kw) ** 2)))(Q)
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


# JAX's draws as one `jax.jit` program (XLA's default options, as a jitted initializer gets);
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


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("softmax", {"where": MASK}),
        ("log_softmax", {"where": MASK}),
        ("logsumexp", {"axis": 1, "where": MASK}),
        ("logsumexp", {"axis": 1, "b": B, "return_sign": True}),
        ("logsumexp", {"axis": 1, "b": B, "return_sign": True, "where": MASK}),
        ("logsumexp", {"axis": 0, "b": B[:2, None], "keepdims": True}),
    ],
)
def test_softmax_family_where_b_and_sign(name: str, kwargs: dict) -> None:
    want = jax.jit(lambda x: getattr(jax.nn, name)(x, **kwargs))(XM)
    got = getattr(didax.nn, name)(XM, **kwargs)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert_matches(g, w)
    if name == "logsumexp":
        return
    # masked-out entries are constants (0 or -inf): the gradient is taken over the others

    def masked_sum(lib, numpy):
        return lambda x: numpy.sum(numpy.where(MASK, getattr(lib.nn, name)(x, **kwargs), 0))

    want_grad = jax.jit(jax.grad(masked_sum(jax, jnp)))(XM)
    got_grad = didax.grad(masked_sum(didax, dnp))(XM)
    np.testing.assert_allclose(np.asarray(got_grad), np.asarray(want_grad), rtol=1e-5, atol=1e-6)
