"""What `%jit` and the jaxpr view show of a program over several devices (issue 10, item 6):
`Compiled.input_shardings`/`output_shardings` as JAX 0.10.2 gives them, the `%jit` report's
"partitioned by XLA" section (each input's and output's spec and the block each device
holds, which the optimized HLO's shapes are), and the device meshes a pmap'd or sharded
program names, in the jaxpr view and its text.

The device count is fixed when a client starts, so the 4-device cases run in the session's
worker processes (`XLA_FLAGS=--xla_force_host_platform_device_count=4`, tests/helpers/devices.py),
as tests/parallel does; the scripts are in scripts/.
"""

from __future__ import annotations

from pathlib import Path

import didax
import didax.numpy as jnp
import pytest
from didax.display import markup, program
from didax.display.text import sections_text
from didax.magics import reports, sections, timing

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.mark.oracle
def test_compiled_input_and_output_shardings_as_jax(device_workers):
    pytest.importorskip("jax")
    mine, theirs = device_workers.run_both(SCRIPTS / "partitioned_io.py")
    assert mine == theirs


@pytest.fixture(scope="module")
def four_devices(device_workers) -> dict:
    return device_workers.run(SCRIPTS / "partitioned_reports.py", "didax")


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
