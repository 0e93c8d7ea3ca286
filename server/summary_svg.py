"""The shape-flow picture of a model summary, laid out by Graphviz's `dot` (Debian's
graphviz package; `shapesense summary --format svg`, and the VS Code webview).

Each module that calls no other is a box (name, type, parameters), in call order, inside
the boxes of the modules that hold it (clusters); an edge goes from each box to the next
one called, labelled with the shape entering the next (its input); the model's input and output are the first
and last nodes. The edge into a call that has a diagnostic (its input does not fit) is red,
with the message on the box."""
from __future__ import annotations

import shutil
import subprocess

from shapesense.analysis import summary as S

DOT_TIMEOUT_S = 20


class LayoutUnavailable(RuntimeError):
    """Graphviz's `dot` is not installed (or failed)."""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(dims) -> str:
    if dims is None:
        return "?"
    return "[" + ", ".join(str(S.dim_json(d)) for d in dims) + "]"


def dot_source(s: S.ModelSummary) -> str:
    out = ["digraph summary {", '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, labeljust=l];',
           '  node [shape=box, style="rounded,filled", fillcolor="#f5f7fa", fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9, color="#555555"];',
           f'  input [shape=oval, fillcolor="#e8f0fe", label={_q("input " + ", ".join(S.value_text(t) for t in s.inputs))}];']
    rows = s.rows
    leaves = []
    depth_open: list = []  # depths of the clusters open
    for i, r in enumerate(rows):
        while depth_open and depth_open[-1] >= r.depth:
            depth_open.pop()
            out.append("  " * (len(depth_open) + 1) + "}")
        has_children = i + 1 < len(rows) and rows[i + 1].depth > r.depth
        params = "" if r.params == 0 else f"\n{S.count_text(r.params)} params"
        label = f"{r.name}: {r.type}{params}"
        indent = "  " * (len(depth_open) + 1)
        if r.depth == 0:
            continue  # the model itself is the whole picture
        if has_children:
            color = "#c0392b" if r.error else "#9aa5b1"
            out.append(f"{indent}subgraph cluster_{i} {{ label={_q(label)}; color={_q(color)}; style=rounded;")
            depth_open.append(r.depth)
            if r.output_shape is None and not any(rows[j].output_shape for j in range(i + 1, len(rows))
                                                  if rows[j].depth > r.depth):
                out.append(f"{indent}  n{i}_empty [label=\"\", style=invis];")
            continue
        extra = f"\n{r.error}" if r.error else ""
        fill = "#fdecea" if r.error else "#f5f7fa"
        out.append(f"{indent}n{i} [label={_q(label + extra)}, fillcolor={_q(fill)}"
                   + (', color="#c0392b"' if r.error else "") + "];")
        leaves.append((i, r))
    while depth_open:
        depth_open.pop()
        out.append("  " * (len(depth_open) + 1) + "}")
    out.append(f'  output [shape=oval, fillcolor="#e8f0fe", label={_q("output " + S.value_text(s.output))}];')
    prev = "input"
    for i, r in leaves:
        attrs = f"label={_q(_shape(r.input_shape))}"
        if r.error:
            attrs += ', color="#c0392b", fontcolor="#c0392b", penwidth=2'
        out.append(f"  {prev} -> n{i} [{attrs}];")
        prev = f"n{i}"
    out.append(f"  {prev} -> output [label={_q(S.value_text(s.output))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def render(s: S.ModelSummary) -> str:
    """The picture as SVG text; LayoutUnavailable without a working `dot`."""
    return layout(dot_source(s))


def layout(source: str) -> str:
    """DOT source laid out as SVG by Graphviz's dot."""
    dot = shutil.which("dot")
    if dot is None:
        raise LayoutUnavailable("the picture needs Graphviz's `dot` (Debian/Ubuntu: apt-get install graphviz)")
    try:
        done = subprocess.run([dot, "-Tsvg"], input=source, capture_output=True, text=True,
                              timeout=DOT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LayoutUnavailable(f"dot failed: {exc}") from exc
    if done.returncode != 0:
        raise LayoutUnavailable(f"dot failed: {done.stderr.strip()[:500]}")
    return done.stdout
