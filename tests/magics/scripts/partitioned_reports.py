"""%jit reports and jaxpr views of partitioned programs
(tests/magics/test_partitioned_views.py)."""

import json

import didax
import didax.numpy as jnp
import numpy as np
from didax import lax
from didax.magics import display, reports
from didax.sharding import Mesh, NamedSharding
from didax.sharding import PartitionSpec as P
from didax.widgets import markup, model

mesh = Mesh(np.array(didax.devices()).reshape(2, 2), ("x", "y"))
x = didax.device_put(jnp.arange(16.0).reshape(8, 2), NamedSharding(mesh, P("x")))


def step(x, w):
    return {"y": jnp.tanh(x @ w), "norm": jnp.sum(w * w)}


r = reports.jit_report(step, (x, jnp.ones((2, 2))), budget=0.05)
p = r.partitioning
text = display.JitDisplay(r).text()
view = display.jit_view(r)
widget_html = " ".join(getattr(c, "value", "") for c in view.children)


def shard(x):
    return lax.psum(x, "i")


pm = didax.pmap(shard, axis_name="i")
jr = reports.jaxpr_report(pm, (jnp.ones((4, 2)),))
jm = model.jaxpr_model(jr.jaxpr)


def constrained(v):
    return lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P("y")))


cm = model.jaxpr_model(didax.make_jaxpr(constrained)(jnp.ones(4)))
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
            "pmap_text": display.JaxprDisplay(jr).text(),
            "pmap_html": markup.io_tables(jm),
            "constraint_rows": [[m.label, m.text] for m in cm.meshes],
        }
    )
)
