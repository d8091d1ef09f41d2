"""Oracle: `custom_batching.custom_vmap` and `sequential_vmap` (issue 24) against JAX 0.10.2:
vmap calls the user's rule with the batched flags JAX gives (in_axes=None, pytrees), values
eagerly, under jit and in jaxprs; jvp and vmap compose both ways (vmap of a jvp batches through
the jvp of the rule); grad raises JAX's ValueError; combined with custom_vjp as JAX's docs show;
the errors for a missing rule and a rule returning the wrong structure."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = {"didax": (didax, dnp), "jax": (jax, jnp)}
TOL = dict(rtol=1e-6, atol=1e-6)


def _add_with_product_rule(lib, seen):
    @lib.custom_batching.custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        seen.append((axis_size, list(in_batched)))
        return xs * ys, any(in_batched)

    return f


def _both(make):
    """`make(lib, np_module)` for each library: (didax's result, JAX's)."""
    return [make(*LIBS[name]) for name in ("didax", "jax")]


def _close(got, want):
    got_l, want_l = didax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_l) == len(want_l)
    for g, w in zip(got_l, want_l, strict=True):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), **TOL)


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0)])
@pytest.mark.parametrize("jitted", [False, True])
def test_vmap_calls_the_rule_with_jaxs_flags(in_axes, jitted):
    xs, ys = np.arange(3.0, dtype=np.float32), np.arange(1.0, 4.0, dtype=np.float32)
    args = [xs if a == 0 else np.float32(2.0) for a, xs in zip(in_axes, (xs, ys))]

    def run(lib, np_):
        seen = []
        fn = lib.vmap(_add_with_product_rule(lib, seen), in_axes=in_axes)
        return (lib.jit(fn) if jitted else fn)(*args), seen

    (got, got_seen), (want, want_seen) = _both(run)
    _close(got, want)
    assert got_seen == want_seen


def test_unbatched_calls_run_the_function_eagerly_jitted_and_staged():
    def run(lib, np_):
        f = _add_with_product_rule(lib, [])
        jaxpr = str(lib.make_jaxpr(f)(1.0, 2.0))
        return f(1.0, 2.0), lib.jit(f)(1.0, 2.0), "custom_vmap_call" in jaxpr

    (d_eager, d_jit, d_staged), (j_eager, j_jit, j_staged) = _both(run)
    _close(d_eager, j_eager)
    _close(d_jit, j_jit)
    assert d_staged and j_staged


def test_jvp_and_vmap_compose_both_ways():
    xs = np.arange(3.0, dtype=np.float32)
    ones = np.ones(3, np.float32)

    def run(lib, np_):
        f = _add_with_product_rule(lib, [])
        jvp_of_f = lib.jvp(f, (1.5, 2.0), (1.0, 1.0))
        # vmap outside: the batch goes through the jvp of the rule (tangent of x * y)
        vmap_of_jvp = lib.vmap(lambda x, y: lib.jvp(f, (x, y), (x, y)))(xs, ones)
        # jvp outside: the rule runs first, and is differentiated as ordinary code
        jvp_of_vmap = lib.jvp(lib.vmap(f), (xs, ones), (ones, xs))
        return jvp_of_f, vmap_of_jvp, jvp_of_vmap

    got, want = _both(run)
    _close(got, want)


def test_grad_raises_as_jax():
    for lib, _ in LIBS.values():
        f = _add_with_product_rule(lib, [])
        with pytest.raises(ValueError, match="Linearization failed"):
            lib.grad(f)(1.0, 2.0)


def test_pytrees_and_a_batched_spec_per_output():
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)

    def run(lib, np_):
        seen = []

        @lib.custom_batching.custom_vmap
        def f(tree):
            return {"double": tree["a"] * 2, "first": tree["b"][0]}

        @f.def_vmap
        def rule(axis_size, in_batched, tree):
            seen.append(in_batched)
            return {"double": tree["a"] * 3, "first": tree["b"][0]}, {
                "double": in_batched[0]["a"],
                "first": in_batched[0]["b"][0],
            }

        out = lib.vmap(f, in_axes=({"a": 0, "b": [None, 0]},))({"a": x, "b": [np.float32(5.0), x]})
        return out, seen

    (got, got_seen), (want, want_seen) = _both(run)
    _close(got, want)
    assert got_seen == want_seen


def test_with_custom_vjp_as_jaxs_docs():
    xs = np.linspace(0.0, 1.0, 4, dtype=np.float32)

    def run(lib, np_):
        @lib.custom_vjp
        @lib.custom_batching.custom_vmap
        def f(x, y):
            return np_.sin(x) * y

        @f.def_vmap
        def f_vmap_rule(axis_size, in_batched, xs, ys):
            return np_.cos(xs) * ys, True

        def f_fwd(x, y):
            return f(x, y), (np_.cos(x), np_.sin(x), y)

        def f_bwd(res, g):
            cos_x, sin_x, y = res
            return (cos_x * g * y, sin_x * g)

        f.defvjp(f_fwd, f_bwd)
        return lib.vmap(f)(xs, xs), lib.grad(f)(0.5, 2.0), lib.vmap(lib.grad(f))(xs, xs)

    got, want = _both(run)
    _close(got, want)


def test_sequential_vmap_loops_with_the_function():
    xs = np.arange(4.0, dtype=np.float32)

    def run(lib, np_):
        @lib.custom_batching.sequential_vmap
        def g(x, y):
            return x * 2.0 + y

        fn = lib.vmap(g, in_axes=(0, None))
        jaxpr = str(lib.make_jaxpr(fn)(xs, np.float32(1.0)))
        return fn(xs, np.float32(1.0)), lib.jit(fn)(xs, np.float32(1.0)), "scan" in jaxpr

    (d_out, d_jit, d_scan), (j_out, j_jit, j_scan) = _both(run)
    _close(d_out, j_out)
    _close(d_jit, j_jit)
    assert d_scan and j_scan


def test_errors_as_jax():
    for lib, np_ in LIBS.values():
        f = lib.custom_batching.custom_vmap(lambda x: {"a": x})
        with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap"):
            f(1.0)

        @f.def_vmap
        def wrong_structure(axis_size, in_batched, x):
            return x, True

        with pytest.raises(ValueError, match="structure of output returned by custom vmap rule"):
            lib.vmap(f)(np_.ones(3))
