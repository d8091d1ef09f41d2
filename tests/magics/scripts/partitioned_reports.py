"""%jit reports and jaxpr views of partitioned programs
(tests/magics/test_partitioned_views.py)."""

import json

import didax
import didax.numpy as jnp
import numpy as np
from didax import lax
from didax.display import markup, program
from didax.display.text import sections_text
from didax.magics import report_views, reports, sections, timing
from didax.sharding import Mesh, NamedSharding
from didax.sharding import PartitionSpec as P

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
print(
    json.dumps(
        {
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
        }
    )
)
