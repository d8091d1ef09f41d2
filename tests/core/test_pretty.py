"""The jaxpr printer: Wadler-style groups (flat when the group fits in 80 columns), JAX's
layout of equations, `_` for unused outputs, and the kind-tagged tokens the widgets color."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
from didax import pretty
from didax.core import ShapedArray
from didax.jaxpr import (
    DropVar,
    Jaxpr,
    JaxprEqn,
    Var,
    _letters,
    jaxpr_lines,
    pp_eqn_context,
    pp_jaxpr,
)
from didax.pretty import Break, Group, Nest, TokenKind, concat, layout, render, text
from didax.primitives import elementwise

X = np.ones(3, np.float32)


# ----------------------------------------------------------------------------- layout


def _doc():
    return Group(concat(text("aaa"), Nest(2, concat(Break(), text("bbb"), Break(), text("ccc")))))


def test_group_is_flat_when_it_fits() -> None:
    assert render(layout(_doc(), width=11)) == "aaa bbb ccc"


def test_group_breaks_every_break_when_it_does_not_fit() -> None:
    assert render(layout(_doc(), width=10)) == "aaa\n  bbb\n  ccc"


def test_inner_group_decides_for_itself() -> None:
    inner = Group(concat(text("x"), Break(), text("y")))
    doc = Group(concat(text("aaaa"), Nest(2, concat(Break(), inner, Break(), text("zzzz")))))
    # the outer group breaks; the inner one fits on its line and stays flat
    assert render(layout(doc, width=8)) == "aaaa\n  x y\n  zzzz"


def test_break_with_empty_flat_text() -> None:
    doc = Group(concat(text("["), Nest(2, concat(Break(""), text("k=v"))), Break(""), text("]")))
    assert render(layout(doc, width=80)) == "[k=v]"
    assert render(layout(doc, width=3)) == "[\n  k=v\n]"


def test_filled_of_one_unbreakable_item_is_the_item() -> None:
    # one binder or one argument (most equations): no group, no nest, no joined tuple, so a
    # view of a 20,000-equation program builds that many fewer objects (#21's GC cost)
    binder = concat(text("a", TokenKind.VAR), text(":f32[]", TokenKind.TYPE))
    assert pretty.filled([binder]) is binder
    word = text("b")
    assert pretty.filled([word]) is word
    # an item that can break keeps its nest: its second line is indented by 2
    breakable = Group(concat(text("xxxx"), Break(), text("yyyy")))
    doc = concat(text("f "), pretty.filled([breakable]))
    assert render(layout(doc, width=6)) == "f xxxx\n  yyyy"


# ----------------------------------------------------------------------------- jaxprs


def test_short_program_prints_on_one_line() -> None:
    closed = didax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(X)
    assert str(closed) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 3.0:f32[] in (c,) }"
    )


def test_width_rule_at_the_boundary() -> None:
    closed = didax.make_jaxpr(lambda x, y: (jnp.sin(x) * y + 1.0, x - y))(X, X)
    flat = pp_jaxpr(closed, width=10_000)
    assert "\n" not in flat
    assert pp_jaxpr(closed, width=len(flat)) == flat
    broken = pp_jaxpr(closed, width=len(flat) - 1)
    lines = broken.splitlines()
    assert lines[0] == "{ lambda ; a:f32[3] b:f32[3]. let"
    assert all(ln.startswith("    ") for ln in lines[1:-1])  # equations at 4 spaces
    assert lines[-1] == "  in (e, f) }"
    # the same equations, separated by newlines instead of "; "
    eqns = flat.split(". let ")[1].split(" in ")[0].split("; ")
    assert [ln.strip() for ln in lines[1:-1]] == eqns


def test_default_width_is_80() -> None:
    long_fn = lambda x: jnp.tanh(jnp.exp(jnp.sin(jnp.cos(x))))
    closed = didax.make_jaxpr(long_fn)(X)
    assert len(pp_jaxpr(closed, width=10_000)) > 80
    assert str(closed) == pp_jaxpr(closed, width=80)
    assert "\n" in str(closed)
    assert all(len(ln) <= 80 for ln in str(closed).splitlines())


def test_unused_outputs_print_underscore() -> None:
    def f(x):
        jnp.sin(x)
        return jnp.cos(x)

    text_ = str(didax.make_jaxpr(f)(X))
    assert "_:f32[3] = sin a" in text_
    assert "b:f32[3] = cos a" in text_  # `_` consumes no name


def test_drop_var_prints_underscore() -> None:
    a, b = Var(ShapedArray((3,), np.float32)), DropVar(ShapedArray((3,), np.float32))
    c = Var(ShapedArray((3,), np.float32))
    jaxpr = Jaxpr(
        [],
        [a],
        [c],
        [JaxprEqn(elementwise.sin_p, [a], [b], {}), JaxprEqn(elementwise.cos_p, [a], [c], {})],
    )
    assert str(jaxpr) == "{ lambda ; a:f32[3]. let _:f32[3] = sin a; b:f32[3] = cos a in (b,) }"


def test_constvars_and_params() -> None:
    c = np.arange(3, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: jnp.sum(x * c, axis=0, keepdims=True))(X)
    out = str(closed)
    assert out.startswith("{ lambda a:f32[3]; b:f32[3]. let")
    assert "reduce_sum[axes=(0,) out_sharding=None]" in out


def test_names_after_z() -> None:
    assert [_letters(i) for i in (0, 25, 26, 27, 51, 52)] == [
        "a",
        "z",
        "ba",
        "bb",
        "bz",
        "ca",
    ]


def test_output_that_is_an_input_and_literal_output() -> None:
    closed = didax.make_jaxpr(lambda x: (x, 2.0))(X)
    assert str(closed) == "{ lambda ; a:f32[3]. let  in (a, 2.0:f32[]) }"


# ----------------------------------------------------------------------------- tokens


def test_tokens_render_to_the_same_text() -> None:
    closed = didax.make_jaxpr(lambda x: jnp.sum(jnp.sin(x) * 2.0, axis=0))(X)
    lines = jaxpr_lines(closed)
    assert render(lines) == str(closed)


def test_token_kinds() -> None:
    closed = didax.make_jaxpr(lambda x: jnp.sum(jnp.sin(x) * 2.0, axis=0))(X)
    tokens = list(pretty.iter_tokens(jaxpr_lines(closed)))
    by_kind: dict[TokenKind, list[str]] = {}
    for t in tokens:
        by_kind.setdefault(t.kind, []).append(t.text)
    assert by_kind[TokenKind.PRIMITIVE] == ["sin", "mul", "reduce_sum"]
    assert by_kind[TokenKind.LITERAL] == ["2.0:f32[]"]
    assert by_kind[TokenKind.KEYWORD] == ["lambda ", "let", "in "]
    assert {"axes", "out_sharding"} <= set(by_kind[TokenKind.PARAM])
    assert set(by_kind[TokenKind.VAR]) == {"a", "b", "c", "d"}
    assert ":f32[3]" in by_kind[TokenKind.TYPE]


def test_eqn_context_marks_one_equation() -> None:
    closed = didax.make_jaxpr(lambda x: jnp.exp(jnp.cos(jnp.sin(x))) + 1.0)(X)
    ctx = pp_eqn_context(closed.jaxpr, 2, radius=1)
    assert ctx.splitlines() == [
        "  c:f32[3] = cos b",
        "> d:f32[3] = exp c",
        "  e:f32[3] = add d 1.0:f32[]",
    ]
