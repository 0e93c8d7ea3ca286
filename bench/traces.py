"""Documents, LSP text changes and the edit traces replayed by the benchmark.

A change is an LSP `TextDocumentContentChangeEvent` with a range:
`{"range": {"start": {"line", "character"}, "end": {...}}, "text": str}`, columns in UTF-16
code units (the generated inputs are ASCII, but samples may not be). Lines split by LSP's
rules: `\\n`, `\\r\\n`, `\\r`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in _LINE_BREAK.finditer(text):
        starts.append(m.end())
    return starts


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def _col_to_index(line_text: str, col16: int) -> int:
    if line_text.isascii():
        return min(col16, len(line_text))
    units = 0
    for i, ch in enumerate(line_text):
        if units >= col16:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


class Doc:
    """The text of one open document, as the client (editor) sees it."""

    def __init__(self, text: str, version: int = 1):
        self.text = text
        self.version = version
        self._starts = line_starts(text)

    def _line_text(self, line: int) -> str:
        s = self._starts[line]
        e = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[s:e].rstrip("\r\n")

    def offset(self, pos: dict) -> int:
        line = pos["line"]
        if line >= len(self._starts):
            return len(self.text)
        return self._starts[line] + _col_to_index(self._line_text(line), pos["character"])

    def position(self, offset: int) -> dict:
        import bisect

        line = bisect.bisect_right(self._starts, offset) - 1
        return {"line": line, "character": _utf16_len(self.text[self._starts[line]:offset])}

    def line_count(self) -> int:
        return len(self._starts)

    def apply(self, change: dict) -> dict:
        """Apply one ranged change; return the inverse change (to undo it)."""
        s = self.offset(change["range"]["start"])
        e = self.offset(change["range"]["end"])
        old = self.text[s:e]
        self.text = self.text[:s] + change["text"] + self.text[e:]
        self._starts = line_starts(self.text)
        self.version += 1
        return {"range": {"start": self.position(s), "end": self.position(s + len(change["text"]))}, "text": old}


def diff_change(old: str, new: str, doc: Doc | None = None) -> dict:
    """One ranged change turning `old` into `new` (common prefix/suffix trimmed)."""
    doc = doc or Doc(old)
    assert doc.text == old
    p = 0
    n = min(len(old), len(new))
    while p < n and old[p] == new[p]:
        p += 1
    q = 0
    while q < n - p and old[len(old) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    return {"range": {"start": doc.position(p), "end": doc.position(len(old) - q)},
            "text": new[p:len(new) - q]}


def rng(l1: int, c1: int, l2: int, c2: int) -> dict:
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def insert(line: int, col: int, text: str) -> dict:
    return {"range": rng(line, col, line, col), "text": text}


@dataclass
class Trace:
    name: str
    description: str
    steps: list[dict]  # changes, each in the coordinates of the document after the previous one
    one_line: bool = False  # every step touches a single line (the "one-line edit" case)
    tags: list[str] = field(default_factory=list)


TYPED_LINE = "y = torch.cat([x, x], dim=1)"

PASTED_BLOCK = '''class PastedMlp(nn.Module):
    """Pasted from another project."""

    def __init__(self, dim: int = 64, hidden: int = 256):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: Tensor) -> Tensor:
        h = self.fc1(x)
        h = self.act(h)
        return self.fc2(h)


'''


def _middle(items: list):
    return items[len(items) // 2] if items else None


def build_traces(text: str, meta: dict, typing_chars: int | None = None) -> list[Trace]:
    """The edit traces for one generated file (those whose anchors exist in it)."""
    lines = text.split("\n")
    traces: list[Trace] = []

    anchor = _middle(meta.get("forward_anchors", []))
    if anchor:
        ln = anchor["line"]
        end = len(lines[ln])
        typed = TYPED_LINE if typing_chars is None else TYPED_LINE[:typing_chars]
        steps = [insert(ln, end, "\n        ")]
        steps += [insert(ln + 1, 8 + i, ch) for i, ch in enumerate(typed)]
        traces.append(Trace("typing", f"type `{typed}` char by char on a new line in {anchor['cls']}.forward",
                            steps, one_line=True))
        traces.append(Trace("comment", f"insert a comment line in {anchor['cls']}.forward",
                            [insert(ln, 0, "        # NOTE: checked against the reference implementation\n")],
                            one_line=True))

    cs = meta.get("class_starts", [])
    if cs:
        at = cs[len(cs) // 2]
        traces.append(Trace("paste", f"paste a {PASTED_BLOCK.count(chr(10))}-line class before line {at + 1}",
                            [insert(at, 0, PASTED_BLOCK)]))

    helpers = [h for h in meta.get("helper_defs", []) if "default_line" in h]
    h = _middle(helpers)
    if h:
        traces.append(Trace("delete_def", f"delete def {h['name']} (called by the driver)",
                            [{"range": rng(h["start"], 0, h["end"] + 2, 0), "text": ""}]))
        dl = h["default_line"]
        old = h["default"]
        new_default = "8" if old.endswith("= 4") else "4"
        col = lines[dl].index(old) + len(old) - 1
        traces.append(Trace("signature", f"change `{old}` to `p: int = {new_default}` in {h['name']} (callers' shapes change)",
                            [{"range": rng(dl, col, dl, col + 1), "text": new_default}], one_line=True))

    sites = [s for s in meta.get("linear_sites", []) if "self.fc1" in lines[s["line"]]]
    s = _middle(sites)
    if s:
        col = lines[s["line"]].index("nn.Linear(") + len("nn.Linear(")
        tok = s["token"]
        traces.append(Trace("add_bug", f"wrong in_features on line {s['line'] + 1}: {tok} -> {int(tok) + 8}",
                            [{"range": rng(s["line"], col, s["line"], col + len(tok)), "text": str(int(tok) + 8)}],
                            one_line=True))

    b = _middle(meta.get("bugs", []))
    if b:
        col = lines[b["line"]].index(b["wrong"])
        traces.append(Trace("fix_bug", f"fix the planted {b['kind']} bug on line {b['line'] + 1}",
                            [{"range": rng(b["line"], col, b["line"], col + len(b["wrong"])), "text": b["right"]}],
                            one_line=True))
    return traces


def comment_trace_for(text: str) -> Trace:
    """For arbitrary files (samples/): a comment-only edit after the first line."""
    return Trace("comment", "insert a comment line at the top", [insert(1, 0, "# bench: comment-only edit\n")],
                 one_line=True)


def rss_cycle(text: str, meta: dict, k: int) -> list[dict]:
    """Edits that type a line char by char in the k-th forward, then backspace it away.

    The document returns to its original text after each cycle, so memory growth is not
    text growth.
    """
    anchors = meta.get("forward_anchors") or []
    lines = text.split("\n")
    if anchors:
        a = anchors[(k * 7) % len(anchors)]
        ln = a["line"]
    else:
        ln = 0
    end = len(lines[ln])
    steps = [insert(ln, end, "\n        ")]
    for i, ch in enumerate(TYPED_LINE):
        steps.append(insert(ln + 1, 8 + i, ch))
    for i in range(len(TYPED_LINE), 0, -1):
        steps.append({"range": rng(ln + 1, 8 + i - 1, ln + 1, 8 + i), "text": ""})
    steps.append({"range": rng(ln, end, ln + 1, 8), "text": ""})
    return steps


def hover_positions(text: str, meta: dict, limit: int = 200) -> list[dict]:
    """Positions on tensor-valued names inside forward methods (targets and arguments)."""
    lines = text.split("\n")
    out = []
    for a in meta.get("forward_anchors", []):
        for ln in (a["line"] - 1, a["line"], a["line"] + 1):
            if not (0 <= ln < len(lines)):
                continue
            t = lines[ln]
            for m in re.finditer(r"\b(x|q|k|v|out|attn|h|qkv|scores|weights)\b", t):
                out.append({"line": ln, "character": m.start()})
    # the driver: results of model calls
    for ln in range(meta.get("driver_start", 0), len(lines)):
        m = re.match(r"(y_\w+|patches_\w+) =", lines[ln])
        if m:
            out.append({"line": ln, "character": 0})
    step = max(1, len(out) // limit)
    return out[::step][:limit]


def change_lines(change: dict) -> tuple[int, int, int]:
    """(first line, last line before, last line after) touched by a ranged change."""
    l1 = change["range"]["start"]["line"]
    l2 = change["range"]["end"]["line"]
    return l1, l2, l1 + change["text"].count("\n") + (0 if "\r" not in change["text"] else change["text"].count("\r") - change["text"].count("\r\n"))
