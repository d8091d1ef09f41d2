"""`eval_shape`, `jacobian`, `typeof`, `device_put`/`device_get`, `config` and
`debug.print` against JAX 0.10.2: same results, reprs and printed lines (debug.print in
program order under eval, jit, vmap, grad, jvp, scan and their compositions)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pytestmark = pytest.mark.oracle


def test_eval_shape():
    def f(x, y):
        return {"p": x @ y, "s": 1.0, "i": (x > 0).astype(int)}

    got = didax.eval_shape(f, didax.ShapeDtypeStruct((2, 3), np.float32), dnp.ones((3, 4)))
    want = jax.eval_shape(f, jax.ShapeDtypeStruct((2, 3), np.float32), jnp.ones((3, 4)))
    assert repr(got) == repr(want)


def test_jacobian():
    def f(lib, m):
        return lib.jacobian(lambda x, y: m.sin(x) * y, argnums=(0, 1))(m.arange(3.0), 2.0)

    got, want = f(didax, dnp), f(jax, jnp)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.ones((2, 3), m.int32),
        lambda m: 1.0,
        lambda m: 2,
        lambda m: m.bool_(True),
        lambda m: m.ones(3) * 2.0,
    ],
)
def test_typeof(make):
    got, want = didax.typeof(make(dnp)), jax.typeof(make(jnp))
    assert (str(got), repr(got)) == (str(want), repr(want))


def test_typeof_of_tracer():
    seen = {}
    didax.jit(lambda x: seen.setdefault("d", didax.typeof(x)) and x)(dnp.ones(2))
    jax.jit(lambda x: seen.setdefault("j", jax.typeof(x)) and x)(jnp.ones(2))
    assert repr(seen["d"]) == repr(seen["j"])


def test_device_put_get():
    tree = {"a": 1, "b": (np.arange(3.0), 2.5)}
    assert repr(didax.device_put(tree)) == repr(jax.device_put(tree))
    got = didax.device_get({"x": dnp.ones(2), "n": 1})
    want = jax.device_get({"x": jnp.ones(2), "n": 1})
    assert type(got["x"]) is type(want["x"]) and repr(got) == repr(want)
    assert didax.block_until_ready(tree) is tree


def test_config():
    assert didax.config.jax_enable_x64 is jax.config.jax_enable_x64 is False
    didax.config.update("jax_enable_x64", False)
    try:  # x64 itself is tested in tests/core/test_x64.py
        didax.config.update("jax_enable_x64", True)
        assert didax.config.jax_enable_x64 is True
    finally:
        didax.config.update("jax_enable_x64", False)
    assert didax.config.jax_enable_x64 is False
    for cfg in (didax.config, jax.config):
        with pytest.raises(AttributeError, match="Unrecognized config option: jax_foo"):
            cfg.update("jax_foo", 1)


def _program(lib, m):
    def f(x):
        lib.debug.print("x={x} y={}", x * 2, x=x)
        return m.sin(x).sum()

    x = m.arange(3.0)
    print("eager")
    f(x)
    print("jit")
    lib.jit(f)(x)
    lib.jit(f)(x + 1)
    print("vmap")
    lib.vmap(f)(x)
    print("grad")
    lib.grad(f)(x)
    print("grad of jit")
    lib.grad(lib.jit(f))(x)
    print("jit of grad")
    lib.jit(lib.grad(f))(x)
    print("jvp")
    lib.jvp(f, (x,), (m.ones(3),))
    print("scan")
    lib.lax.scan(lambda c, v: (f(v) + c, None), 0.0, x)
    print("jit of vmap")
    lib.jit(lib.vmap(f))(x[:2])
    print("vmap of jit")
    lib.vmap(lib.jit(f))(x[:2])
    lib.debug.print("{:.2f} {a}", 1.0, a=m.ones(2))
    lib.debug.print("plain")
    print(lib.make_jaxpr(f)(1.0))


def test_debug_print_order_and_jaxpr(capsys):
    _program(didax, dnp)
    got = capsys.readouterr().out
    _program(jax, jnp)
    want = capsys.readouterr().out
    assert got == want
