"""Segments re-parsed per edit equal a full parse of the new text, node for node."""
import gc
import random
from pathlib import Path

import pytest
from parso.tree import NodeOrLeaf
from parso.utils import split_lines

from shapesense.analysis.syntax import _GRAMMAR, SyntaxTree, _split

SAMPLES = sorted((Path(__file__).parent.parent / "samples").glob("*.py"))

# Pieces that open and close brackets, strings and blocks, change indentation and line ends.
PIECES = ["x = (", ")", '"""', "'", "class A:\n", "    def f(self):\n", "        return 1\n",
          "else:\n", "if x:\n", "  ", "\n", "# c\n", "@d\n", "def g():\n", "    pass\n",
          "y = [1,\n", "]", "\\\n", "try:\n", "except E:\n", "é😀", "\r\n", "\t", "lambda: (",
          "f'{x'", "async def h():\n", "    await x\n", "x = 1; y = 2\n", "  \n", ""]


def _dump(segments) -> list:
    """Every segment's lines and every node of it, in file lines."""
    out = []
    for seg in segments:
        out.append(("segment", seg.start, seg.end))
        stack = [(n, seg.offset) for n in reversed(seg.nodes)]
        while stack:
            node, off = stack.pop()
            if hasattr(node, "children"):
                out.append((node.type,))
                stack.extend((c, off) for c in reversed(node.children))
            else:
                out.append((node.type, node.value, node.prefix, node.start_pos[0] + off, node.start_pos[1]))
    return out


def _full(text: str) -> list:
    module = _GRAMMAR.parse(text, error_recovery=True, cache=False)
    return _dump(_split(module.children, 0, len(split_lines(text)) + 1))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_random_edits_reparse_like_a_full_parse(sample):
    rnd = random.Random(sample.name)
    for _ in range(6):
        text = sample.read_text()
        tree = SyntaxTree()
        tree.update(text)
        for _ in range(25):
            a = rnd.randrange(len(text) + 1)
            b = min(len(text), a + rnd.choice([0, 0, 1, 2, 5, 20, 200]))
            text = text[:a] + rnd.choice(PIECES) + text[b:]
            assert _dump(tree.update(text)) == _full(text), text


def test_an_edit_inside_a_def_reparses_only_its_segment():
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200))
    tree = SyntaxTree()
    tree.update(text)
    edited = text.replace("return x + 100\n", "return x * 100\n")
    tree.update(edited)
    assert 0 < tree.reparsed_lines <= 8
    assert _dump(tree.segments) == _full(edited)
    # an unclosed bracket swallows what follows: the region grows until it closes
    opened = edited.replace("return x * 100\n", "return (x * 100\n")
    tree.update(opened)
    assert _dump(tree.segments) == _full(opened)


def _big_class():
    """A 120-line class parsed, and where a line goes in its 16th method."""
    methods = "".join(f"    def m{i}(self, x):\n        y = x + {i}\n        return y\n\n" for i in range(30))
    text = f"import torch\n\n\nclass Big:\n{methods}\nclass After:\n    pass\n"
    tree = SyntaxTree()
    tree.update(text)
    anchor = text.index("        return y\n", text.index("def m15"))
    return text, tree, anchor


def test_typing_in_a_method_reparses_that_method_alone():
    text, tree, anchor = _big_class()
    typed = "z = torch.cat([x, x], dim=1)"
    for n in range(len(typed) + 1):  # every prefix, unclosed brackets included
        edited = text[:anchor] + "        " + typed[:n] + "\n" + text[anchor:]
        tree.update(edited)
        assert _dump(tree.segments) == _full(edited), typed[:n]
        assert tree.reparsed_lines < 12  # the method and the next line, not the 120-line class
    # an unclosed string swallows the methods after it: the class is re-parsed instead
    opened = text[:anchor] + '        s = """\n' + text[anchor:]
    tree.update(opened)
    assert _dump(tree.segments) == _full(opened)
    assert tree.reparsed_lines > 12


COMMENT_LINES = ["# note\n", "\n", "    # indented\n", "  \n", "#\r\n", "\t# tab é😀\n", "# \\\n"]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_comment_line_edits_reparse_like_a_full_parse(sample):
    """Comment and blank lines added, removed and changed anywhere: between statements, in
    brackets, in strings that span lines, after a line continuation, at the file's ends."""
    rnd = random.Random("comments " + sample.name)
    text = sample.read_text()
    tree = SyntaxTree()
    tree.update(text)
    for _ in range(60):
        lines = split_lines(text, keepends=True)
        at = rnd.randrange(len(lines))
        kind = rnd.choice(["add", "add", "remove", "change"])
        if kind == "add":
            lines[at:at] = [rnd.choice(COMMENT_LINES) for _ in range(rnd.choice([1, 1, 3]))]
        elif lines[at].strip() in ("",) or lines[at].lstrip().startswith("#"):
            lines[at:at + 1] = [] if kind == "remove" else [rnd.choice(COMMENT_LINES)]
        if "".join(lines) == text:
            continue
        text = "".join(lines)
        assert _dump(tree.update(text)) == _full(text), text


def test_a_comment_edit_in_a_method_parses_nothing():
    text, tree, anchor = _big_class()
    for comment in ("        # a note\n", "        # a note\n\n        # two\n", "# at column 0\n"):
        edited = text[:anchor] + comment + text[anchor:]
        assert _dump(tree.update(edited)) == _full(edited)
        assert tree.reparsed_lines == 0
        assert _dump(tree.update(text)) == _full(text)
        assert tree.reparsed_lines == 0
    in_string = text.replace("import torch\n", 'import torch\nDOC = """\n\n"""\n')
    tree.update(in_string)
    edited = in_string.replace('"""\n\n"""', '"""\n# not a comment\n"""')
    assert _dump(tree.update(edited)) == _full(edited)
    assert tree.reparsed_lines > 0  # a line of a string is no comment


def _parse_objects() -> int:
    # (type(), not isinstance(): a dead weakref proxy some library left in the heap raises
    # ReferenceError when isinstance() asks it for its __class__)
    return sum(1 for o in gc.get_objects() if issubclass(type(o), NodeOrLeaf))


def test_replaced_parse_nodes_are_freed_without_the_cyclic_collector():
    """Parso nodes point to their parents: every subtree an edit replaces (and every region
    parsed only to check where it ends) is a reference cycle. A long edit session piled them
    up until a full collection, which then held the server for seconds (tests/soak)."""
    from shapesense.analysis.db import AnalysisHost

    text = (Path(__file__).parent.parent / "samples" / "mnist_cnn.py").read_text()
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith("        x = "))  # inside a method
    top = next(i for i, ln in enumerate(lines) if ln.startswith("class "))
    host, path = AnalysisHost(), "/freed/model.py"
    host.set_file(path, text)
    host.analyze(path)
    gc.collect()
    gc.disable()
    try:
        before = _parse_objects()  # the file's own nodes
        for i in range(30):
            edited = list(lines)
            edited[at if i % 2 else top] += f"  # {i}" if i % 3 else "("  # some edits break the syntax
            host.set_file(path, "\n".join(edited))
            host.analyze(path)
        host.set_file(path, text)
        host.analyze(path)
        alive_or_garbage = _parse_objects()
        gc.collect()
        garbage = alive_or_garbage - _parse_objects()
    finally:
        gc.enable()
    assert garbage < before * 0.2, (before, garbage)  # it was 20 times `before`


def test_a_parse_keeps_no_cycle_through_its_module():
    """A region's top-level nodes are cut from the module parso made for it: the module
    (through its endmarker's parent) kept alive every node an edit released later. With the
    collector off, the parse nodes alive are exactly those of the current segments."""
    text = (Path(__file__).parent.parent / "samples" / "mnist_cnn.py").read_text() + "\n\n"
    lines = text.split("\n")
    top = [i for i, ln in enumerate(lines) if ln.startswith(("class ", "def "))]
    gc.collect()
    gc.disable()
    try:
        baseline = _parse_objects()
        tree = SyntaxTree()
        tree.update(text)
        for i in range(20):
            edited = list(lines)
            edited.insert(top[i % len(top)], f"z{i} = {i}")  # a new top-level statement: region parses
            tree.update("\n".join(edited))
        tree.update(text)
        alive = _parse_objects() - baseline
    finally:
        gc.enable()
    in_segments = sum(1 for seg in tree.segments for node in _walk(seg.nodes))
    assert alive == in_segments, (alive, in_segments)


def _walk(nodes):
    stack = list(nodes)
    while stack:
        n = stack.pop()
        yield n
        stack.extend(getattr(n, "children", ()))


def test_split_lines_is_parsos_on_any_text():
    """The fast path (str.splitlines) gives exactly parso's lines, also with the breaks only
    one of them knows (\\r, \\x0c, \\u2028, ...) and a final newline."""
    import random

    from parso.utils import split_lines as parso_split_lines

    from shapesense.analysis.syntax import split_lines

    rng = random.Random(7)
    alphabet = ["a", "\n", "\r", "\r\n", "\x0c", "\x0b", " ", "#", "\u2028", "\x85", "x"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert split_lines(text) == parso_split_lines(text, keepends=True), repr(text)


@pytest.mark.parametrize("broken", ["x = x.view(6 _)", "x, z = x.view(6 _), 1", "x += x.view(6 _)"])
def test_a_line_that_does_not_parse_still_reassigns_its_targets(broken):
    # Mid-typing, `x = x.view(6 _)` is an error node; x's value before the line is no
    # longer x, so nothing (no squiggle, no hover) may come from it.
    from shapesense.analysis.db import AnalysisHost

    text = f"import torch\nx = torch.randn(2, 3)\n{broken}\ny = x @ torch.randn(4, 5)\n"
    host = AnalysisHost()
    host.set_file("/virtual/broken.py", text)
    result = host.analyze("/virtual/broken.py")
    assert result.diagnostics == []
    assert not [f for f in result.facts if f.span.start[0] == 3 and f.text == "y" and f.shape != "?"]
