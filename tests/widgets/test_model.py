"""didax.display models: the jaxpr model's text is `str(jaxpr)`, tokens know their variables,
equations and folds; the graph is laid out in layers; cost keys are grouped; HLO metadata is
marked; residuals; the stepper evaluates one equation at a time."""

from __future__ import annotations

from typing import Any, NamedTuple

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from didax.display import compiled, graph, markup, parts, program, provenance, stepper
from didax.jaxpr import JaxprEqn
from didax.widgets import layout

X = jnp.array([0.5, 1.0, 2.0])


def simple(x):
    return jnp.sin(x) * 3.0


def control(x):
    y = lax.cond(x.sum() > 0, lambda v: jnp.sin(v), lambda v: jnp.cos(v), x)
    z = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, y))
    w = lax.scan(lambda c, a: (c + a, c * a), 0.0, x)
    return didax.jit(lambda q: q * 2)(z[1]) + w[1]


def long_body(x):
    def body(i, v):  # more than 10 equations: the printer binds it up front with `let`
        for _ in range(12):
            v = jnp.sin(v)
        return v

    return lax.fori_loop(0, 2, body, x)


def chain(n):
    def f(x):
        for i in range(n):
            x = jnp.sin(x) if i % 2 else x * 1.5
        return x

    return f


PROGRAMS = {
    "simple": simple,
    "control": control,
    "shared": long_body,
    "jit_twice": lambda x: didax.jit(simple)(x) + didax.jit(simple)(x * 2.0),
    "no_eqns": lambda x: x,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_model_text_is_str_of_the_jaxpr(name):
    closed = didax.make_jaxpr(PROGRAMS[name])(X)
    model = program.jaxpr_model(closed)
    assert model.text() == str(closed)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_printed_primitive_is_an_equation_in_print_order(name):
    closed = didax.make_jaxpr(PROGRAMS[name])(X)
    model = program.jaxpr_model(closed)
    top = [info for info in model.eqns if info.top_index is not None]
    assert [i.top_index for i in top] == list(range(len(closed.eqns)))
    assert [i.primitive for i in top] == [e.primitive.name for e in closed.eqns]
    lines = program.eqn_lines(closed)
    assert len(lines) == len(model.eqns)  # nested equations too
    for e in closed.eqns:  # each top-level equation's line prints its primitive
        _, spans = model.lines[lines[id(e)]]
        assert any(s.eqn is not None and s.text == e.primitive.name for s in spans)


def test_variables_know_their_binding_and_uses():
    model = program.jaxpr_model(didax.make_jaxpr(simple)(X))
    spans = [s for _, ss in model.lines for s in ss if s.var is not None]
    b = model.var_names.index("b")  # b = sin a; c = mul b 3.0
    assert [s.binds for s in spans if s.var == b] == [True, False]
    a = model.var_names.index("a")
    assert [s.binds for s in spans if s.var == a] == [True, False]


def test_folds_cover_multiline_equations_and_nested_jaxprs_properly_nested():
    closed = didax.make_jaxpr(control)(X)
    model = program.jaxpr_model(closed)
    text = model.text().split("\n")
    starts = {text[f.start].strip().split(" = ")[-1].split("[")[0]: f for f in model.folds}
    assert {"cond", "while", "scan", "jit"} <= set(starts)
    jaxpr_folds = [f for f in model.folds if f.label == "jaxpr"]
    assert any("body_jaxpr={ lambda" in text[f.start] for f in jaxpr_folds)
    for f in model.folds:  # any two folds are nested or apart
        for g in model.folds:
            if f is not g and f.start <= g.start <= f.end:
                assert g.end <= f.end and g.start > f.start


def test_nested_equations_have_depth():
    model = program.jaxpr_model(didax.make_jaxpr(control)(X))
    depth = {(i.primitive, i.depth) for i in model.eqns}
    assert ("cond", 1) in depth and ("sin", 2) in depth and ("cos", 2) in depth


class EqnWithSource(NamedTuple):  # an equation as provenance will make it
    primitive: Any
    invars: Any
    outvars: Any
    params: Any
    source_info: Any


class Info(NamedTuple):
    file: str
    line: int
    function: str
    text: str


def with_source(closed: Any) -> Any:
    eqns = closed.jaxpr.eqns
    for i, e in enumerate(eqns):
        info = Info("model.py", 10 + i, "simple", f"line {i} <b>")
        if "source_info" in e._fields:  # the engine records provenance: replace it
            eqns[i] = e._replace(source_info=info)
        else:
            eqns[i] = EqnWithSource(*e, info)
    return closed


def test_source_info_is_read_when_equations_have_it():
    closed = with_source(didax.make_jaxpr(simple)(X))
    model = program.jaxpr_model(closed)
    assert str(closed) == model.text()
    sources = [i.source for i in model.eqns]
    assert [s.where() for s in sources] == ["model.py:10", "model.py:11"]
    assert sources[0].describe() == "model.py:10 in simple\n    line 0 <b>"
    # the engine's own provenance: both equations of `simple` come from its return line
    traced = program.jaxpr_model(didax.make_jaxpr(simple)(X))
    assert all(info.source is not None for info in traced.eqns)
    for info in traced.eqns:
        if info.source is not None:
            assert info.source.file.endswith("test_model.py")
            assert info.source.text.strip() == "return jnp.sin(x) * 3.0"


def test_graph_has_a_node_per_equation_and_a_layered_layout():
    closed = didax.make_jaxpr(lambda x, y: jnp.sin(x) * y + jnp.cos(x))(X, X)
    g = graph.graph_model(closed)
    kinds = [n.kind for n in g.nodes]
    assert kinds.count("input") == 2 and kinds.count("output") == 1
    assert [n.label for n in g.nodes if n.kind == "eqn"] == [e.primitive.name for e in closed.eqns]
    assert len(g.edges) == sum(len(e.invars) for e in closed.eqns) + 1
    placed = layout.layout_graph(g)
    assert set(placed.boxes) == {n.id for n in g.nodes}
    for e in g.edges:  # layered: every edge points down
        assert placed.boxes[e.dst][1] > placed.boxes[e.src][1]
    xs = {(round(x), round(y)) for x, y, _, _ in placed.boxes.values()}
    assert len(xs) == len(g.nodes)  # no two nodes on one spot


def test_cost_model_groups_per_operand_keys():
    cost = {"flops": 6.0, "bytes accessed": 24.0, "bytes accessed0{}": 12.0, "utilization0{}": 1}
    cm = compiled.cost_model(cost)
    assert [(r.label, r.text) for r in cm.main] == [("flops", "6"), ("bytes accessed", "24 B")]
    assert [(r.label, r.text) for r in cm.per_operand] == [
        ("operand 0 read", "12 B"),
        ("operand 0 utilization", "1"),
    ]


def test_cost_keys_in_words():
    # the keys XLA's CPU cost analysis gives for `jit(lambda x, y: sin(x) * y)` on f32[3]
    cost = {
        "bytes accessed": 36.0,
        "utilization1{}": 1.0,
        "transcendentals": 3.0,
        "bytes accessedout{}": 12.0,
        "utilization0{}": 1.0,
        "flops": 3.0,
        "bytes accessed0{}": 12.0,
        "bytes accessed1{}": 12.0,
        "bytes accessed2{1}": 8.0,
    }
    rows = [(r.label, r.text) for r in compiled.cost_model(cost).per_operand]
    assert rows == [
        ("operand 0 read", "12 B"),
        ("operand 1 read", "12 B"),
        ("operand 2 part {1} read", "8 B"),
        ("output written", "12 B"),
        ("operand 0 utilization", "1"),
        ("operand 1 utilization", "1"),
    ]
    html = markup.cost_html(compiled.cost_model(cost))
    assert "operand 0 read" in html and "bytes each operand reads" in html


def test_hlo_model_marks_metadata_and_keeps_text():
    text = (
        'ROOT %sine.1 = f32[3]{0} sine(f32[3]{0} %p), metadata={op_name="jit(f)/sin" '
        'source_file="x.py" source_line=3}\n  %c = f32[] constant(3)'
    )
    hm = compiled.hlo_model(text)
    assert hm.text() == text
    assert "metadata" not in hm.text(metadata=False)
    assert "ROOT %sine.1 = f32[3]{0} sine(f32[3]{0} %p)" in hm.text(metadata=False)
    kinds = {k for line in hm.lines for k, _ in line}
    assert {
        compiled.HloKind.META,
        compiled.HloKind.OP,
        compiled.HloKind.TYPE,
        compiled.HloKind.NAME,
    } <= kinds


def test_stepper_evaluates_one_equation_at_a_time():
    closed = didax.make_jaxpr(simple)(X)
    s = stepper.StepperState(closed, (X,))
    assert s.current()[1] is closed.eqns[0]
    s.step()
    assert s.log[-1][1] == "b" and s.log[-1][2].startswith("f32[3] [0.479")
    s.step()
    s.step()  # leaves the program
    assert s.done
    np.testing.assert_allclose(np.asarray(s.outputs[0]), np.sin(X) * 3.0, rtol=1e-6)
    s.back()
    assert not s.done and s.steps == 2


def test_stepper_enters_the_taken_branch_and_loop_iterations():
    closed = didax.make_jaxpr(control)(X)
    s = stepper.StepperState(closed, (X,))
    s.run()
    np.testing.assert_allclose(np.asarray(s.outputs[0]), np.asarray(control(X)), rtol=1e-6)
    wheres = [w for w, _, _ in s.log]
    assert "program > cond branch 1" in wheres  # sum > 0: the true branch (sin)
    assert "program > while iteration 3" in wheres and "program > while iteration 4" not in wheres
    assert any(w.startswith("program > jit") for w in wheres)
    neg = stepper.StepperState(closed, (-X,))
    neg.run()
    assert "program > cond branch 0" in [w for w, _, _ in neg.log]


def test_stepper_rejects_wrong_argument_count():
    with pytest.raises(TypeError, match="takes 1 arguments, got 2"):
        stepper.StepperState(didax.make_jaxpr(simple)(X), (X, X))


def test_value_text_and_seconds():
    assert parts.value_text(np.float32(2.5)) == "f32[] 2.5"
    assert parts.value_text(X).startswith("f32[3] [0.5")
    assert compiled.format_time(0.0123) == "12.3 ms"
    assert compiled.format_time(None) == "-"


def test_stepper_enters_scan_iterations_with_a_counter():
    def f(x):
        return lax.scan(lambda c, a: (c + a, c * a), 0.0, x, reverse=True)

    closed = didax.make_jaxpr(f)(X)
    s = stepper.StepperState(closed, (X,))
    s.run()
    carry, ys = f(X)
    np.testing.assert_allclose(np.asarray(s.outputs[0]), np.asarray(carry), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s.outputs[1]), np.asarray(ys), rtol=1e-6)
    wheres = [w for w, _, _ in s.log]
    assert "program > scan iteration 3 of 3" in wheres


def _ref(path: tuple, primitive: str) -> provenance.EqnRef:
    return provenance.EqnRef(path, primitive, "", None, (), ())


def test_the_cost_table_rows_render_with_their_fusion():
    rows = (
        provenance.EqnCost(_ref((0,), "sin"), 3, 3, 24, ("sine.1",), ("fusion",), ("kLoop",)),
        provenance.EqnCost(_ref((0, 1), "mul"), 3, 0, 36, (), (), ()),
    )
    html = markup.eqn_cost_html(rows)
    assert "<td>0</td><td><span class='dx-primitive'>sin</span></td><td>fusion</td>" in html
    assert "<td>kLoop</td><td>3</td><td>24</td>" in html
    assert "<span class='dx-primitive'>  mul</span></td><td>-</td><td>-</td>" in html


def test_hlo_source_tables_are_metadata():
    # XLA's optimized HLO opens with source tables holding machine paths; like metadata={...}
    # they are hidden unless asked for
    text = (
        'HloModule jit_f\n\nFileNames\n1 "/tmp/ipykernel_1/2.py"\n\nFunctionNames\n1 "f"\n\n'
        "FileLocations\n1 {file_name_id=1 function_name_id=1 line=3}\n\n"
        "ENTRY %main (x: f32[3]) -> f32[3] {\n"
        '  ROOT %sin = f32[3]{0} sine(%x), metadata={op_name="jit(f)/sin" stack_frame_id=1}\n}'
    )
    model = compiled.hlo_model(text)
    hidden = model.text(metadata=False)
    assert "/tmp/" not in hidden and "FileNames" not in hidden and "metadata" not in hidden
    assert "ROOT %sin = f32[3]{0} sine(%x)" in hidden and "HloModule jit_f" in hidden
    assert model.text(metadata=True) == text
    assert "/tmp/" not in markup.hlo_code(model) and "/tmp/" in markup.hlo_code(
        model, metadata=True
    )


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_printer_tags_each_primitive_with_its_equation(name):
    # the views read which equation a token prints from the IR, never by matching names
    closed = didax.make_jaxpr(PROGRAMS[name])(X)
    lines = program.printed_lines(closed)
    tagged = [t.ref for _, ts in lines for t in ts if t.kind is program.TokenKind.PRIMITIVE]
    every: list = []
    seen: set[int] = set()

    def walk(jaxpr):  # a jaxpr reached twice is printed once (as a shared `let`)
        if id(jaxpr) in seen:
            return
        seen.add(id(jaxpr))
        for e in jaxpr.eqns:
            every.append(e)
            for sub in program.nested_jaxprs(e):
                walk(sub)

    walk(closed.jaxpr)
    assert sorted(map(id, tagged)) == sorted(map(id, every))
    assert all(isinstance(e, JaxprEqn) for e in tagged)
