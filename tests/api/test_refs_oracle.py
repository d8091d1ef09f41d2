"""Oracle: mutable arrays (`new_ref`, `empty_ref`, `freeze`, `Ref`; issue 24, item 4) against
JAX 0.10.2: reads, whole and partial writes, `+=`, their shape/dtype errors, `typeof` and the
repr; a function using a ref inside gives JAX's values eagerly and under jit, grad and vmap.
Jaxprs, jit arguments and closures: test_ref_primitives_oracle.py."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]


def _session(m, np_) -> list:
    r = m.new_ref(np_.zeros(3))
    out = [repr(r), str(m.typeof(r)), r.shape, str(r.dtype)]
    r[...] += 1.0
    r[1] = 5.0
    out += [np.asarray(r[...]).tolist(), float(r[0]), np.asarray(r[1:]).tolist()]
    frozen = m.freeze(r)
    out += [type(frozen).__name__.replace("ArrayImpl", "Array"), np.asarray(frozen).tolist()]
    r2 = m.new_ref(np_.zeros((2, 3)))
    r2[0, 1:] = np_.ones(2)
    r2[1] += 2
    out += [repr(r2), repr(m.new_ref(1.0)), str(m.typeof(m.new_ref(1.0)))]
    return out


def test_ref_session_matches_jax():
    assert _session(didax, dnp) == _session(jax, jnp)


def test_write_errors_match_jax():
    for m, np_ in LIBS:
        r = m.new_ref(np_.arange(3.0))
        with pytest.raises(ValueError, match="Invalid shape for `swap`"):
            r[...] = np_.ones(2)
        with pytest.raises(ValueError, match="Invalid shape for `swap`"):
            r[...] = 2.0
        with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32"):
            r[...] = np_.ones(3, np.int32)
        with pytest.raises(TypeError):
            np_.sin(m.new_ref(np_.ones(2)))


def _uses_ref(m, np_):
    def f(x):
        ref = m.new_ref(np_.zeros_like(x))
        ref[...] = x * 2
        ref[...] += 1
        ref[0] = ref[0] * x[0]
        return m.freeze(ref)

    return f


def test_functions_with_refs_match_jax_under_transformations():
    got = []
    x = np.array([1.5, -2.0], np.float32)
    for m, np_ in LIBS:
        f = _uses_ref(m, np_)
        outs = [
            f(x),
            m.jit(f)(x),
            m.grad(lambda v, f=f, np_=np_: np_.sum(f(v)))(x),
            m.vmap(f)(np.stack([x, 2 * x])),
        ]
        got.append([np.asarray(o).tolist() for o in outs])
    assert got[0] == got[1]


def test_empty_ref_under_jit():
    got = []
    for m, np_ in LIBS:

        def h(x, m=m, np_=np_):
            e = m.empty_ref(m.ShapeDtypeStruct((2,), np.float32))
            e[...] = x
            return m.freeze(e)

        got.append(np.asarray(m.jit(h)(np_.ones(2))).tolist())
    assert got[0] == got[1] == [1.0, 1.0]


def test_writing_a_traced_value_into_an_outer_ref_raises_like_jax():
    for m, np_ in LIBS:
        r = m.new_ref(np_.zeros(2))

        def f(x, r=r):
            r[...] = x
            return x

        with pytest.raises(Exception, match="with a differentiated value on a non-differentiated"):
            m.grad(lambda x, f=f, np_=np_: np_.sum(f(x)))(np_.ones(2))
        with pytest.raises(Exception, match="with vmapped value on an unbatched array reference"):
            m.vmap(f)(np_.ones((3, 2)))
    # under jit the ref is threaded through the program, as in JAX
    for m, np_ in LIBS:
        r = m.new_ref(np_.zeros(2))
        m.jit(lambda x, r=r: r.__setitem__(Ellipsis, x))(np_.ones(2))
        assert np.asarray(r[...]).tolist() == [1.0, 1.0]
