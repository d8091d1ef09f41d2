"""What `%jit` and the jaxpr view show of a program over several devices (issue 10, item 6):
`Compiled.input_shardings`/`output_shardings` as JAX 0.10.2 gives them, the `%jit` report's
"partitioned by XLA" section (each input's and output's spec and the block each device
holds, which the optimized HLO's shapes are), and the device meshes a pmap'd or sharded
program names, in the jaxpr view and its text.

The device count is fixed when a client starts, so the 4-device cases run in subprocesses
with `XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel does.
"""

from __future__ import annotations

import textwrap

import didax
import didax.numpy as jnp
import pytest
from didax.display import markup, program
from didax.display.text import sections_text
from didax.magics import reports, sections, timing
from subprocess_devices import run_with_devices

IO_SHARDINGS = """
import json, sys
import numpy as np
M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    M.config.update("jax_use_shardy_partitioner", False)
else:
    import didax.numpy as jnp
    from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(M.devices()), ("b",))
s = NamedSharding(mesh, P("b"))
def g(x, y):
    return {"s": jnp.sin(x) * 2, "t": x.sum() + y}
x = M.device_put(jnp.arange(8.0), s)
out = []
for compiled in [
    M.jit(g).lower(jnp.ones(8), 1.0).compile(),
    M.jit(g, out_shardings=NamedSharding(mesh, P())).lower(x, 1.0).compile(),
    M.jit(g).lower(x, y=2.0).compile(),
]:
    out.append([repr(compiled.input_shardings), repr(compiled.output_shardings)])
print(json.dumps(out))
"""

REPORTS = """
import json
import numpy as np
import didax, didax.numpy as jnp
from didax import lax
from didax.display.text import sections_text
from didax.magics import report_views, reports, sections, timing
from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
from didax.display import markup, program

mesh = Mesh(np.array(didax.devices()).reshape(2, 2), ("x", "y"))
x = didax.device_put(jnp.arange(16.0).reshape(8, 2), NamedSharding(mesh, P("x")))

def step(x, w):
    return {"y": jnp.tanh(x @ w), "norm": jnp.sum(w * w)}

r = timing.jit_report(step, (x, jnp.ones((2, 2))), budget=0.05)
p = r.partitioning
total = timing.jit_report(lambda v: jnp.sum(v), (x,), budget=0.05)
text = sections_text(sections.jit_sections(r))
view = report_views.jit_view(r)
widget_html = " ".join(getattr(c, "value", "") for c in view.children)

def shard(x):
    return lax.psum(x, "i")

pm = didax.pmap(shard, axis_name="i")
jr = reports.jaxpr_report(pm, (jnp.ones((4, 2)),))
jm = program.jaxpr_model(jr.jaxpr)

def constrained(v):
    return lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P("y")))

cm = program.jaxpr_model(didax.make_jaxpr(constrained)(jnp.ones(4)))
print(json.dumps({
    "meshes": list(p.meshes),
    "inputs": [[s.label, s.type, s.spec, s.shard] for s in p.inputs],
    "outputs": [[s.label, s.type, s.spec, s.shard] for s in p.outputs],
    "text": text,
    "widget_html": widget_html,
    "hlo_has_block": "f32[4,2]" in r.hlo and "num_partitions=4" in r.hlo,
    "pmap_rows": [[m.label, m.text] for m in jm.meshes],
    "pmap_text": sections_text(sections.jaxpr_sections(jr)),
    "pmap_html": markup.io_tables(jm),
    "constraint_rows": [[m.label, m.text] for m in cm.meshes],
    "collectives": [list(c) for c in p.collectives],
    "total_collectives": [list(c) for c in total.partitioning.collectives],
    "total_text": sections_text(sections.jit_sections(total)),
}))
"""


def _run(code: str, *argv: str) -> object:
    return run_with_devices(textwrap.dedent(code), *argv)


@pytest.mark.oracle
def test_compiled_input_and_output_shardings_as_jax():
    pytest.importorskip("jax")
    assert _run(IO_SHARDINGS, "didax") == _run(IO_SHARDINGS, "jax")


@pytest.fixture(scope="module")
def four_devices() -> dict:
    return _run(REPORTS)  # type: ignore[return-value]


def test_jit_report_shows_how_xla_split_the_program(four_devices):
    assert four_devices["meshes"] == ["x=2 × y=2 (4 devices)"]
    assert four_devices["inputs"] == [
        ["x", "f32[8,2]", "P('x',)", "f32[4,2]"],
        ["w", "f32[2,2]", "P() (replicated)", "f32[2,2]"],
    ]
    assert four_devices["outputs"] == [
        ["out['norm']", "f32[]", "P() (replicated)", "f32[]"],
        ["out['y']", "f32[8,2]", "P('x',)", "f32[4,2]"],
    ]
    # the optimized HLO is one device's program: the blocks the section names
    assert four_devices["hlo_has_block"]
    text = four_devices["text"]
    assert "partitioned by XLA over mesh x=2 × y=2 (4 devices)" in text
    assert "x            f32[8,2]  P('x',)  -> f32[4,2] on each device" in text
    assert text.index("partitioned by XLA") < text.index("optimized HLO")
    widget_html = four_devices["widget_html"]  # the live view shows it too
    assert "partitioned by XLA over mesh x=2 × y=2 (4 devices)" in widget_html
    assert "P(&#x27;x&#x27;,)  -&gt; f32[4,2] on each device" in widget_html


def test_per_device_view_names_the_collectives_xla_inserted(four_devices):
    # the rows of x split over devices, w replicated: no device needs another's block
    assert four_devices["collectives"] == []
    assert "collectives  none: each device computes on its own block" in four_devices["text"]
    # a sum over the split rows: each device sums its block, then an all-reduce adds them
    assert ["all-reduce", 1] in four_devices["total_collectives"]
    assert "all-reduce \u00d71 (XLA inserted" in four_devices["total_text"]


def test_jaxpr_view_names_the_mesh_of_a_pmap_and_a_constraint(four_devices):
    assert four_devices["pmap_rows"] == [["mesh i", "i=4 (4 devices)"]]
    assert "mesh i     i=4 (4 devices)" in four_devices["pmap_text"]
    html = four_devices["pmap_html"]
    assert "device meshes" in html and "i=4 (4 devices)" in html
    assert four_devices["constraint_rows"] == [["mesh x, y", "x=2 × y=2 (4 devices)"]]


def test_one_device_programs_show_no_partitioning():
    r = timing.jit_report(jnp.sin, (jnp.ones(3),), budget=0.05)
    assert r.partitioning is None
    assert "partitioned" not in sections_text(sections.jit_sections(r))
    closed = didax.make_jaxpr(lambda v: jnp.sin(v) * 2)(jnp.ones(3))
    assert program.jaxpr_model(closed).meshes == ()
    assert "device meshes" not in markup.io_tables(program.jaxpr_model(closed))
    assert "mesh" not in sections_text(
        sections.jaxpr_sections(reports.jaxpr_report(jnp.sin, (1.0,)))
    )
