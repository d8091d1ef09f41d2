"""`didax.live_arrays()`: the Arrays not yet deleted or garbage-collected, eager or on the
device, checked against `jax.live_arrays()` by how the count moves as arrays are made, dropped
and deleted."""

from __future__ import annotations

import gc

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def count(lib) -> int:
    gc.collect()
    return len(lib.live_arrays())


def moves(lib, np_) -> list[int]:
    """How the live count moves through a small program's life."""
    f = lib.jit(lambda a: a * 2.0)
    # each operation once before counting: compiled, any constants it caches made
    f(np_.ones(3)), np_.arange(4.0), np_.zeros(2), lib.device_put(np.ones(2, np.float32))
    start = count(lib)
    out = []
    x = np_.arange(4.0)  # eager
    out.append(count(lib) - start)
    y = f(x)  # a device buffer
    out.append(count(lib) - start)
    z = lib.device_put(np.ones(2, np.float32))
    out.append(count(lib) - start)
    del x
    out.append(count(lib) - start)
    y.delete()
    out.append(count(lib) - start)
    pair = [np_.zeros(2), np_.zeros(3)]
    out.append(count(lib) - start)
    del pair, z
    out.append(count(lib) - start)
    return out


def test_count_follows_arrays_made_dropped_and_deleted():
    assert moves(didax, dnp) == moves(jax, jnp) == [1, 2, 3, 2, 1, 3, 0]


def test_items_are_the_live_arrays_themselves():
    x = dnp.arange(3.0)
    y = didax.jit(lambda a: a + 1.0)(x)
    live = didax.live_arrays()
    assert all(type(a) is didax.Array for a in live)
    assert any(a is x for a in live) and any(a is y for a in live)
    x.delete()
    assert not any(a is x for a in didax.live_arrays())
    theirs = jnp.arange(3.0)
    assert any(a is theirs for a in jax.live_arrays())  # JAX's items are its Arrays too


def test_platform_cpu_and_unknown_platforms():
    x = dnp.ones(2)
    assert any(a is x for a in didax.live_arrays("cpu"))
    for name in ("gpu", "foo"):
        with pytest.raises(RuntimeError) as theirs:
            jax.live_arrays(name)
        with pytest.raises(RuntimeError) as mine:
            didax.live_arrays(name)
        assert str(mine.value) == str(theirs.value)
