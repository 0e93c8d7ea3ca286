"""Small pure parts of the server: settings parsing, hover markdown, fix placement."""
from __future__ import annotations

from shapesense.analysis.results import FileAnalysis, Fix, ShapeFact, Span, TextEdit
from shapesense.server.features.hover import markdown
from shapesense.server.features.inlay_hints import annotation_for
from shapesense.server.settings import Settings, parse_settings


def test_settings_accept_flat_nested_and_dotted_objects():
    flat, _ = parse_settings({"debounceMs": 100, "inlayHints": False})
    nested, _ = parse_settings({"shapesense": {"debounceMs": 100, "inlayHints": False}})
    dotted, _ = parse_settings({"shapesense.debounceMs": 100, "shapesense.inlayHints": False})
    assert flat == nested == dotted == Settings(debounce_ms=100, inlay_hints=False)


def test_invalid_settings_fall_back_one_by_one():
    settings, problems = parse_settings({
        "enable": "yes", "annotationStyle": "assert", "conditionalSeverity": "loud",
        "solverTimeoutMs": 5, "debounceMs": 12.5, "trace": "verbose",
    })
    assert settings == Settings(annotation_style="assert")
    assert len(problems) == 4  # enable, conditionalSeverity, solverTimeoutMs, debounceMs; unknown keys ignored
    assert all("using the default" in p for p in problems)
    _, problems = parse_settings(["not", "an", "object"])
    assert problems
    settings, problems = parse_settings({"interpreter": "/usr/bin/python3"})
    assert settings.interpreter == "/usr/bin/python3" and not problems
    assert parse_settings({"interpreter": 3})[1]  # not a path: a problem, the default kept


def test_null_resets_and_missing_keeps_base():
    base = Settings(debounce_ms=40, inlay_hints=False)
    settings, problems = parse_settings({"debounceMs": None}, base)
    assert settings == Settings(debounce_ms=None, inlay_hints=False) and not problems


def test_hover_markdown_first_line_and_escaping():
    fact = ShapeFact(Span((0, 0), (1, 3)), "f(\n  x)", "Tensor[B, 2]", "16*5*5 from <conv> with kernel_size=3", False, ("Tensor[8, 2]", "Tensor[1, 2]"))
    lines = markdown(fact).splitlines()
    assert lines[:3] == ["```python", "f( x): Tensor[B, 2]", "```"]
    assert "16\\*5\\*5 from \\<conv> with kernel_size=3" in lines
    assert "- `Tensor[8, 2]`" in lines and "- `Tensor[1, 2]`" in lines


def test_inlay_hint_pairs_each_target_with_its_own_annotation():
    a = ShapeFact(Span((0, 0), (0, 1)), "a", "Tensor[2]", is_target=True)
    b = ShapeFact(Span((0, 10), (0, 11)), "b", "Tensor[3]", is_target=True)
    ann_b = Fix("Annotate b", (TextEdit(Span((0, 11), (0, 11)), ": T3"),))
    comment_a = Fix("Comment a", (TextEdit(Span((0, 20), (0, 20)), "  # shape: [2]"),))
    analysis = FileAnalysis("m.py", facts=[a, b], annotations=[ann_b, comment_a])
    assert annotation_for(analysis, b) is ann_b
    assert annotation_for(analysis, a) is comment_a  # not b's annotation, though later on the line
