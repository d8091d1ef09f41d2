"""Source locations in the lowered module and in XLA's optimized HLO (issue 12, item 2):
each equation's ops carry `loc("<op name>#<index>"("<function>"("<file>":line:col)))`, and
XLA's metadata keeps the op name and a stack frame pointing at the user's line."""

from __future__ import annotations

import os
import re

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import lax
from didax.interpreters import lowering
from didax.jaxpr import ClosedJaxpr, Jaxpr

HERE = os.path.abspath(__file__)
X = np.ones(4, np.float32)


def f(np_, x):
    y = np_.sin(x)
    return y * 3.0


F_SIN = f.__code__.co_firstlineno + 1


def g(x):
    return dnp.cos(x) * 2.0


def outer(x):
    y = dnp.sin(x)
    return y + didax.jit(g)(y) + didax.jit(g)(y * 2.0)


def _file_locations(hlo: str) -> set[tuple[str, int, int]]:
    """(function, line, column) of each FileLocations entry of an optimized HLO module."""
    files = dict(re.findall(r'^(\d+) "(.*)"$', hlo.split("FunctionNames")[0], re.M))
    section = hlo.split("FunctionNames")[1].split("FileLocations")[0]
    functions = dict(re.findall(r'^(\d+) "(.*)"$', section, re.M))
    out = set()
    for file_id, fn_id, line, col in re.findall(
        r"file_name_id=(\d+) function_name_id=(\d+) line=(\d+) end_line=\d+ column=(\d+)", hlo
    ):
        if files[file_id] == HERE:
            out.add((functions[fn_id], int(line), int(col)))
    return out


def test_stablehlo_locations_name_the_equation_and_the_users_line() -> None:
    lowered = didax.jit(lambda x: f(dnp, x)).lower(X)
    text = lowered.as_text(debug_info=True)
    assert f'loc("{HERE}":{F_SIN}:8 to :18)' in text
    assert re.search(r'loc\("jit\(<lambda>\)/sin#0"\(#loc\d+\)\)', text)
    assert re.search(r'loc\("jit\(<lambda>\)/mul#1"\(#loc\d+\)\)', text)
    assert "loc(" not in lowered.as_text()  # as JAX: no debug info unless asked


def test_optimized_hlo_metadata_carries_op_names_and_source_lines() -> None:
    hlo = didax.jit(lambda x: f(dnp, x)).lower(X).compile().as_text()
    assert 'op_name="jit(<lambda>)/sin#0" stack_frame_id=' in hlo
    assert 'op_name="jit(<lambda>)/mul#1" stack_frame_id=' in hlo
    assert ("f", F_SIN, 8) in _file_locations(hlo)
    assert ("f", F_SIN + 1, 11) in _file_locations(hlo)


def test_nested_jit_paths_are_per_call_site() -> None:
    hlo = didax.jit(outer).lower(X).compile().as_text()
    names = set(re.findall(r'op_name="([^"]*)"', hlo))
    # equations 1 and 4 of outer's jaxpr are the two calls of jit(g); cos is g's equation 0
    assert "jit(outer)/jit(g)#1/cos#0" in names
    assert "jit(outer)/jit(g)#4/cos#0" in names
    line = g.__code__.co_firstlineno + 1
    assert ("g", line, 11) in _file_locations(hlo)


def test_control_flow_bodies_are_named_inside_their_equation() -> None:
    def loop(x):
        return lax.fori_loop(0, 3, lambda i, c: dnp.sin(c), x)

    text = didax.jit(loop).lower(X).as_text(debug_info=True)
    assert re.search(r'"jit\(loop\)/(scan|while)#\d+/sin#\d+"', text), text


def test_equations_without_source_keep_the_op_name() -> None:
    closed = didax.make_jaxpr(lambda x: f(dnp, x))(X)
    bare = [e._replace(source_info=None) for e in closed.eqns]
    j = closed.jaxpr
    jaxpr = ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, bare), closed.consts)
    text = lowering.module_text(lowering.lower_jaxpr_to_module(jaxpr, "f"), debug_info=True)
    assert 'loc("jit(f)/sin#0")' in text
    assert HERE not in text


@pytest.mark.oracle
def test_file_locations_as_jax() -> None:
    jax = pytest.importorskip("jax")
    ours = _file_locations(didax.jit(lambda x: f(dnp, x)).lower(X).compile().as_text())
    theirs = _file_locations(jax.jit(lambda x: f(jax.numpy, x)).lower(X).compile().as_text())
    assert {loc for loc in theirs if loc[0] == "f"} == {loc for loc in ours if loc[0] == "f"}
