"""`shapesense summary --format svg`: the shape-flow picture laid out by Graphviz's dot.
Skipped where dot is missing, except on CI (tools/test.sh installs Debian's graphviz)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SVG = "{http://www.w3.org/2000/svg}"

if shutil.which("dot") is None and not os.environ.get("CI"):
    pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)", allow_module_level=True)


def _svg(path):
    out = subprocess.run([sys.executable, "-m", "shapesense", "summary", str(path), "--format", "svg"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return ET.fromstring(out.stdout)


def _texts(g) -> str:
    return " ".join(t.text or "" for t in g.iter(f"{SVG}text"))


def test_failing_edge_is_red_and_labelled_with_the_shape_that_failed():
    root = _svg(ROOT / "samples" / "lenet_wrong_linear.py")
    nodes = {g.find(f"{SVG}title").text: g for g in root.iter(f"{SVG}g") if g.get("class") == "node"}
    edges = {g.find(f"{SVG}title").text: g for g in root.iter(f"{SVG}g") if g.get("class") == "edge"}
    labels = {title: _texts(g) for title, g in nodes.items()}
    assert sorted(v.split(" ")[0] for k, v in labels.items() if k.startswith("n")) == \
        ["conv1:", "conv2:", "fc1:", "fc2:", "fc3:"]
    red = [t for t, g in edges.items() if any(p.get("stroke") == "#c0392b" for p in g.iter(f"{SVG}path"))]
    assert len(red) == 1
    fc1 = next(k for k, v in labels.items() if v.startswith("fc1:"))
    assert red[0].endswith("->" + fc1)
    assert _texts(edges[red[0]]) == "[8, 256]"  # what reached fc1 (Linear(400, 120))
    assert "mat1 and mat2 shapes cannot be multiplied (8x256 and 400x120)" in labels[fc1]


def test_edges_carry_the_shape_entering_each_layer():
    root = _svg(ROOT / "samples" / "mnist_cnn.py")
    edges = [_texts(g) for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    # input -> conv1 -> conv2 -> dropout1 -> fc1 -> dropout2 -> fc2 -> output, each edge
    # labelled with the shape entering the next box
    assert edges == ["[64, 1, 28, 28]", "[64, 32, 26, 26]", "[64, 64, 12, 12]", "[64, 9216]",
                     "[64, 128]", "[64, 128]", "Tensor[64, 10]"]


def test_blocks_are_clusters_around_their_layers():
    root = _svg(ROOT / "samples" / "blocks_and_helpers.py")
    clusters = [_texts(g) for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]
    assert clusters[0].startswith("stem: ConvBNAct 464 params")
    assert any(c.startswith("dense: DenseBlock") for c in clusters)
