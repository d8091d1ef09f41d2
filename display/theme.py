"""Colours and the stylesheet of the views, and the same styles inline for stored outputs.

Layer 6, beside the HTML writer (markup.py): the palette (a light and a dark colour per token
kind, each >= 4.5:1 on its theme's backgrounds), the stylesheet every view carries, the WCAG
contrast measure the tests use, and `inline_styles`, which copies the stylesheet onto each
element of a stored `text/html` as `style` attributes.

Why inline: JupyterLab sanitizes the HTML outputs of an untrusted notebook (one its user did not
run and save; @jupyterlab/apputils `Sanitizer`, sanitize-html underneath): `<style>` and `<svg>`
are not among its allowed tags, and a `style` attribute keeps only declarations whose value
matches its CSS grammar (`allowedStyles`), where colours are literal (`#hex`, `rgb()`, names),
never `var(...)`. So a stored view states each colour twice, `color:#3a7bc6;color:var(--dx-
primitive)`: trusted, the second wins and follows the theme, as live; untrusted, the second is
dropped and the first, one colour chosen >= 4.3:1 on both Light's and Dark's output background
(`STORED`), remains.
"""

from __future__ import annotations

import base64
import re

# ----------------------------------------------------------------------------- style

# token colours: (light theme, dark theme); each >= 4.5:1 on its theme's backgrounds
PALETTE: dict[str, tuple[str, str]] = {
    "fg": ("#1f1f1f", "#e8e8e8"),  # plain text where JupyterLab's variables are missing
    "keyword": ("#7b2fa0", "#d2a8ff"),
    "primitive": ("#0b4f9c", "#79b8ff"),
    "type": ("#5a5f66", "#b3bac1"),
    "literal": ("#8f4400", "#ffab70"),
    "param": ("#1a6b2f", "#85e89d"),
    "comment": ("#5a5f66", "#b3bac1"),
    "meta": ("#5a5f66", "#b3bac1"),
    "warn": ("#8f4400", "#ffab70"),
    "new": ("#1a6b2f", "#85e89d"),
    "dropped": ("#a4262c", "#ff9492"),
}
# the backgrounds the palette is drawn on: JupyterLab's layout colours 0-2 and the highlight
BACKGROUNDS = {
    "light": ("#ffffff", "#eeeeee", "#fff3b0"),
    "dark": ("#111111", "#424242", "#4a4000"),
}
HIGHLIGHT = ("#fff3b0", "#4a4000")
# the box tints of the course's figures (didax.figures): (light theme, dark theme), each with
# the theme's "fg" text >= 4.5:1 on it (a test measures it)
TINTS: dict[str, tuple[str, str]] = {
    "blue": ("#dbeafe", "#1e3a5f"),
    "amber": ("#fde68a", "#5c4400"),
    "green": ("#d1fae5", "#14532d"),
    "red": ("#fee2e2", "#5f1d1d"),
}
# the kinds of PALETTE a figure's curves are drawn in, in order
CURVE_KINDS = ("primitive", "dropped")


def _palette_vars(which: int) -> str:
    items = [f"--dx-{k}: {v[which]};" for k, v in PALETTE.items()]
    items += [f"--dx-tint-{k}: {v[which]};" for k, v in TINTS.items()]
    bg = ("#ffffff", "#1e1e1e")[which]
    return " ".join([*items, f"--dx-hl: {HIGHLIGHT[which]};", f"--dx-bg: {bg};"])


CSS = (
    """
.dx-view { """
    + _palette_vars(0)
    + """ color: var(--jp-content-font-color1, var(--dx-fg));
  font-family: var(--jp-code-font-family, monospace); font-size: var(--jp-code-font-size, 13px); }
body[data-jp-theme-light="false"] .dx-view { """
    + _palette_vars(1)
    + """ }
@media (prefers-color-scheme: dark) { body:not([data-jp-theme-light]) .dx-view { """
    + _palette_vars(1)
    + """ } }
.dx-view .dx-code { white-space: pre; overflow-x: auto; line-height: 1.4; }
.dx-view .dx-l { display: block; padding-left: 1.3em; position: relative; min-height: 1.4em; }
.dx-view details > summary { cursor: pointer; }
.dx-view details.dx-section > summary { font-weight: bold; margin: 6px 0 2px 0; }
.dx-view details.dx-fold > summary { list-style: none; }
.dx-view details.dx-fold > summary::-webkit-details-marker { display: none; }
.dx-view details.dx-fold > summary::before { content: "\\25BE"; position: absolute;
  left: 0.2em; color: var(--dx-type); }
.dx-view details.dx-fold:not([open]) > summary::before { content: "\\25B8"; }
.dx-view details.dx-fold:not([open]) > summary::after { content: " \\2026";
  color: var(--dx-type); }
.dx-view .dx-keyword { color: var(--dx-keyword); font-weight: bold; }
.dx-view .dx-primitive { color: var(--dx-primitive); font-weight: bold; }
.dx-view .dx-type { color: var(--dx-type); }
.dx-view .dx-literal { color: var(--dx-literal); }
.dx-view .dx-param { color: var(--dx-param); }
.dx-view .dx-comment, .dx-view .dx-meta { color: var(--dx-meta); }
.dx-view .dx-var { cursor: pointer; border-radius: 2px; }
.dx-view .dx-src { text-decoration: underline dotted; }
.dx-view [title] { cursor: help; }
.dx-view .dx-pick { display: none; }
.dx-view .dx-prim, .dx-view .dx-prim[title], .dx-view .dx-close { cursor: pointer;
  border-radius: 2px; }
.dx-view .dx-rules-of { display: none; margin: 6px 0; padding-left: 8px;
  border-left: 2px solid var(--dx-primitive); white-space: normal; max-height: 480px;
  overflow: auto; }
.dx-view .dx-rules-of::details-content { content-visibility: visible; }  /* shown: open */
@supports selector(::details-content) { .dx-view .dx-rules-of > summary { display: none; } }
.dx-view .dx-close { display: inline !important; float: right; color: var(--dx-type); }
.dx-view .dx-current { background: var(--dx-hl); }
.dx-view .dx-warn { color: var(--dx-warn); }
.dx-view .dx-new { color: var(--dx-new); }
.dx-view .dx-dropped { color: var(--dx-dropped); text-decoration: line-through; }
.dx-view .dx-mark { font-style: italic; }
.dx-view .dx-unchanged { color: var(--dx-type); }
.dx-view table.dx-rows { border-collapse: collapse; margin: 2px 0; font-size: inherit;
  table-layout: auto; }
.dx-view table.dx-rows tr, .dx-view table.dx-rows tr:nth-child(odd),
  .dx-view table.dx-rows tr:hover { background: none; }  /* no zebra or hover rows */
.dx-view table.dx-rows th { text-align: left; vertical-align: top; padding: 1px 12px 1px 0;
  font-weight: normal; color: var(--dx-type); white-space: nowrap; }
.dx-view table.dx-rows td { text-align: left; padding: 1px 8px 1px 0; white-space: pre; }
.dx-view .dx-heading { font-weight: bold; margin: 6px 0 2px 0; }
.dx-view .dx-note { color: var(--dx-type); margin: 2px 0; white-space: pre-wrap; }
.dx-view .dx-try { color: var(--dx-type); margin: 4px 0 2px 0; font-size: 90%; }
.dx-view .dx-scroll { overflow: auto; max-height: 480px; border: 1px solid
  var(--jp-border-color2, #e0e0e0); }
.dx-view svg text { fill: var(--jp-content-font-color1, var(--dx-fg));
  font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.dx-view svg .dx-node rect { fill: var(--jp-layout-color1, var(--dx-bg));
  stroke: var(--jp-border-color1, #9e9e9e); }
.dx-view svg .dx-node-input rect, .dx-view svg .dx-node-const rect { stroke: var(--dx-param); }
.dx-view svg .dx-node-output rect { stroke: var(--dx-keyword); }
.dx-view svg .dx-node-eqn text { fill: var(--dx-primitive); font-weight: bold; }
.dx-view svg.dx-graph { color: var(--dx-type); }  /* the arrow heads' currentColor */
.dx-view svg path.dx-edge { fill: none; stroke: var(--dx-type); }  /* >= 3:1 in both themes */
.dx-view svg .dx-edge-label { font-size: 10px; fill: var(--dx-type); }
.dx-view svg rect.dx-group { fill: none; stroke: var(--dx-type); stroke-dasharray: 4 3; }
.dx-view svg text.dx-group-label { font-size: 10px; fill: var(--dx-type); }
.dx-view svg .dx-node text.dx-node-value { fill: var(--dx-literal); font-weight: normal; }
.dx-view svg .dx-node text.dx-node-grad { fill: var(--dx-new); font-weight: normal; }
.dx-view svg .dx-bar-compiled { fill: var(--dx-primitive); }
.dx-view svg .dx-bar-eager { fill: var(--dx-literal); }
.dx-view svg.dx-figure { color: var(--jp-content-font-color1, var(--dx-fg));
  font-family: var(--jp-ui-font-family, sans-serif); }  /* ink: lines, arrow heads, text */
.dx-view svg.dx-figure text { font-family: var(--jp-ui-font-family, sans-serif); }
.dx-view svg.dx-figure rect.dx-tint-blue { fill: var(--dx-tint-blue); }
.dx-view svg.dx-figure rect.dx-tint-amber { fill: var(--dx-tint-amber); }
.dx-view svg.dx-figure rect.dx-tint-green { fill: var(--dx-tint-green); }
.dx-view svg.dx-figure rect.dx-tint-red { fill: var(--dx-tint-red); }
.dx-view svg.dx-figure .dx-curve-0 { stroke: var(--dx-primitive); }
.dx-view svg.dx-figure .dx-curve-1 { stroke: var(--dx-dropped); }
.dx-view img.dx-svg-copy { display: none; }  /* a stored drawing's copy, for untrusted */
.dx-view .dx-svg-live { display: contents !important; }  /* over its inline display:none */
"""
)


def style() -> str:
    return f"<style>{CSS}</style>"


# The rules of a widget's stand-in output (markup.standin), in JupyterLab's output DOM: an
# output (`.jp-OutputArea-child`) whose renderer is a panel (`.lm-Panel`: the widget renderer)
# holding no `.jupyter-widgets` view could not draw its widget (its text says "Error
# displaying widget: model not found", or "Loading widget..." while it waits for one): the
# stand-in after it shows its copy, and that output is hidden. After a drawn widget, or after
# anything else (an untrusted notebook's text/html, nbconvert), the stand-in stays hidden.
# `:has()` cannot nest, so each state is said at the top level of one compound selector.
_WIDGET = ":has(> .jp-OutputArea-output.lm-Panel)"
_DRAWN = ":has(> .jp-OutputArea-output > .jupyter-widgets)"
_UNDRAWN = f".jp-OutputArea-child{_WIDGET}:not({_DRAWN})"
STANDIN_CSS = f"""
{_UNDRAWN} + .jp-OutputArea-child .dx-standin {{ display: block !important; }}
{_UNDRAWN}:has(+ .jp-OutputArea-child .dx-standin) {{ display: none; }}
.jp-OutputArea-child:not({_WIDGET}:not({_DRAWN})) + .jp-OutputArea-child:has(.dx-standin),
.jp-OutputArea-child:first-child:has(.dx-standin) {{ display: none; }}
"""


def relative_luminance(color: str) -> float:
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    rgb = [int(c[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of two `#rrggbb` colours."""
    a, b = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


# ----------------------------------------------------------------------------- stored

# one colour per kind for an untrusted stored view (no theme variables reach it): the mix of
# the kind's light and dark colours with the best contrast on both output backgrounds,
# #ffffff (Light) and #111111 (Dark); each >= 4.3:1 on both (a test measures it)
STORED: dict[str, str] = {
    "fg": "#797979",
    "keyword": "#9d5ec5",
    "primitive": "#3a7bc6",
    "type": "#747a81",
    "literal": "#b36524",
    "param": "#34894a",
    "comment": "#747a81",
    "meta": "#747a81",
    "warn": "#b36524",
    "new": "#34894a",
    "dropped": "#c95255",
}
OUTPUT_BACKGROUNDS = ("#ffffff", "#111111")  # Light's and Dark's --jp-layout-color0


def _colour(kind: str) -> str:
    return f"color:{STORED[kind]};color:var(--dx-{kind})"


_CODE_FONT = "font-family:monospace;font-family:var(--jp-code-font-family,monospace)"
_BOLD = "font-weight:bold"
# the stylesheet's rules for a class, as declarations (a value with var() stated twice)
INLINE_BY_CLASS: dict[str, str] = {
    "dx-view": f"{_CODE_FONT};font-size:13px;font-size:var(--jp-code-font-size,13px)",
    "dx-code": "white-space:pre;overflow-x:auto;line-height:1.4",
    "dx-l": "display:block;padding-left:1.3em;position:relative;min-height:1.4em",
    "dx-keyword": f"{_colour('keyword')};{_BOLD}",
    "dx-primitive": f"{_colour('primitive')};{_BOLD}",
    "dx-type": _colour("type"),
    "dx-literal": _colour("literal"),
    "dx-param": _colour("param"),
    "dx-comment": _colour("meta"),
    "dx-meta": _colour("meta"),
    "dx-pick": "display:none",
    "dx-close": "display:none",  # a rules block's close: a radio, so only with the stylesheet
    "dx-warn": _colour("warn"),
    "dx-new": _colour("new"),
    "dx-dropped": f"{_colour('dropped')};text-decoration:line-through",
    "dx-mark": "font-style:italic",
    "dx-unchanged": _colour("type"),
    "dx-rows": "border-collapse:collapse;margin:2px 0;font-size:inherit;table-layout:auto",
    "dx-heading": f"{_BOLD};margin:6px 0 2px 0",
    "dx-note": f"{_colour('type')};margin:2px 0;white-space:pre-wrap",
    "dx-try": f"{_colour('type')};margin:4px 0 2px 0;font-size:90%",
    "dx-scroll": "overflow:auto;max-height:480px;border:1px solid #e0e0e0;"
    "border:1px solid var(--jp-border-color2,#e0e0e0)",
}
# and for a tag inside a view (JupyterLab's own zebra rows and right-aligned cells undone)
INLINE_BY_TAG: dict[str, str] = {
    "tr": "background-color:transparent",
    "th": "text-align:left;vertical-align:top;padding:1px 12px 1px 0;font-weight:normal;"
    f"white-space:nowrap;{_colour('type')}",
    "td": "text-align:left;padding:1px 8px 1px 0;white-space:pre",
}
_TAG = re.compile(r"<([a-z]+)(\s[^<>]*)?>")
_CLASS = re.compile(r'\sclass="([^"]*)"')
_STYLE = re.compile(r'\sstyle="([^"]*)"')


def _with_style(match: re.Match[str]) -> str:
    tag, attrs = match.group(1), match.group(2) or ""
    classes = _CLASS.search(attrs)
    names = classes.group(1).split() if classes else []
    if "dx-view" in names:  # its other class names its kind; the rules are for what it holds
        names = ["dx-view"]
    decls = [INLINE_BY_TAG.get(tag, "")] + [INLINE_BY_CLASS.get(c, "") for c in names]
    if tag == "summary" and "dx-l" in names:
        decls.append("display:list-item")  # keeps the fold's marker where ::before is gone
    decl = ";".join(d for d in decls if d)
    if not decl:
        return match.group(0)
    old = _STYLE.search(attrs)
    if old:  # the element's own style comes last: it wins, as it does over the stylesheet
        attrs = _STYLE.sub("", attrs)
        decl = f"{decl};{old.group(1)}"
    return f'<{tag}{attrs} style="{decl}">'


def inline_styles(markup: str) -> str:
    """markup.py's markup with the stylesheet's rules copied onto each element as a `style`
    attribute, so it looks the same where `<style>` is removed (see the module docstring);
    `<style>` blocks are kept for where they are not. Each SVG drawing is followed by a copy
    as an `<img>` (a data: URL, with its own stylesheet), which the stylesheet hides: where
    the sanitizer removed the `<svg>` (keeping its text) and the stylesheet, the drawing's
    wrapper stays hidden and the copy shows instead."""
    pieces = re.split(r"(<style>.*?</style>|<svg.*?</svg>)", markup, flags=re.DOTALL)
    return "".join(
        p
        if p.startswith("<style>")
        else f'<div class="dx-svg-live" style="display:none">{p}</div>{_svg_copy(p)}'
        if p.startswith("<svg")
        else _TAG.sub(_with_style, p)
        for p in pieces
    )


def _svg_copy(svg: str) -> str:
    data = base64.b64encode(standalone_svg(svg, themed=True).encode()).decode()
    label = re.match(r'<svg[^>]*\saria-label="([^"]*)"', svg)  # already escaped
    alt = label.group(1) if label else ""
    return f'<img class="dx-svg-copy" alt="{alt}" src="data:image/svg+xml;base64,{data}">'


def standalone_svg(svg: str, *, themed: bool = False) -> str:
    """An SVG drawing of the views as a file of its own: with its stylesheet (the views' SVG
    rules on the light palette, a white background), readable where no JupyterLab theme or
    view stylesheet is around. `themed` (a stored drawing's `<img>` copy): the dark palette
    on Dark's output background where the page is dark. An image's `prefers-color-scheme`
    is its page's `color-scheme` (Chromium, Firefox), which JupyterLab sets on <body> from
    its theme (`dark` in JupyterLab Dark), so the copy follows the theme untrusted too."""
    rules = re.findall(r"\.dx-view svg[^{]*\{[^}]*\}", CSS)
    body = "\n".join(r.replace(".dx-view ", "") for r in rules)
    style = f"svg {{ {_palette_vars(0)} background: {OUTPUT_BACKGROUNDS[0]}; }}\n{body}"
    if themed:
        dark = f"svg {{ {_palette_vars(1)} background: {OUTPUT_BACKGROUNDS[1]}; }}"
        style += f"\n@media (prefers-color-scheme: dark) {{ {dark} }}"
    head = svg.index(">") + 1
    return f"{svg[:head]}<style><![CDATA[\n{style}\n]]></style>{svg[head:]}"
