"""Build self-contained single-file torchvision model files (+ a driver) from an installed torchvision.

Usage: python3 make_tv.py [SITE_PACKAGES] [OUT_DIR]
Reads torchvision/models/<name>.py, removes weights enums, registry decorators and telemetry,
inlines the small helpers it imports (ops.misc, ops.stochastic_depth, models._utils, utils),
and appends an `if __name__ == "__main__":` driver. No torchvision source is stored here.
"""
import ast
import re
import sys
from pathlib import Path

if len(sys.argv) < 3:
    sys.exit("usage: realworld_make_tv.py SITE_PACKAGES_WITH_TORCHVISION OUT_DIR")
SITE = Path(sys.argv[1])
OUT = Path(sys.argv[2])
TV = SITE / "torchvision"

# file stem, output name, driver body
MODELS = [
    ("alexnet", "tv_alexnet", "model = alexnet()", 224),
    ("vgg", "tv_vgg11_bn", "model = vgg11_bn()", 224),
    ("resnet", "tv_resnet18", "model = resnet18()", 224),
    ("resnet", "tv_resnet50", "model = resnet50()", 224),
    ("resnet", "tv_resnext50", "model = resnext50_32x4d()", 224),
    ("densenet", "tv_densenet121", "model = densenet121()", 224),
    ("squeezenet", "tv_squeezenet1_1", "model = squeezenet1_1()", 224),
    ("mobilenetv2", "tv_mobilenet_v2", "model = mobilenet_v2()", 224),
    ("mobilenetv3", "tv_mobilenet_v3_small", "model = mobilenet_v3_small()", 224),
    ("shufflenetv2", "tv_shufflenet_v2", "model = shufflenet_v2_x1_0()", 224),
    ("mnasnet", "tv_mnasnet1_0", "model = mnasnet1_0()", 224),
    ("googlenet", "tv_googlenet", "model = googlenet()", 224),
    ("inception", "tv_inception_v3", "model = inception_v3()", 299),
    ("efficientnet", "tv_efficientnet_b0", "model = efficientnet_b0()", 224),
    ("regnet", "tv_regnet_y_400mf", "model = regnet_y_400mf()", 224),
    ("convnext", "tv_convnext_tiny", "model = convnext_tiny()", 224),
    ("vision_transformer", "tv_vit_b_16", "model = vit_b_16()", 224),
    ("swin_transformer", "tv_swin_t", "model = swin_t()", 224),
    ("maxvit", "tv_maxvit_t", "model = maxvit_t()", 224),
]

# helper name -> (file relative to torchvision, extra helper names it needs)
HELPERS = {
    "_make_ntuple": ("utils.py", []),
    "ConvNormActivation": ("ops/misc.py", ["_make_ntuple"]),
    "Conv2dNormActivation": ("ops/misc.py", ["ConvNormActivation"]),
    "SqueezeExcitation": ("ops/misc.py", []),
    "MLP": ("ops/misc.py", []),
    "Permute": ("ops/misc.py", []),
    "stochastic_depth": ("ops/stochastic_depth.py", []),
    "StochasticDepth": ("ops/stochastic_depth.py", ["stochastic_depth"]),
    "_make_divisible": ("models/_utils.py", []),
    "_ovewrite_named_param": ("models/_utils.py", []),
}
DROP_IMPORTS = ("_log_api_usage_once", "register_model", "Weights", "WeightsEnum", "_IMAGENET_CATEGORIES",
                "handle_legacy_interface", "ImageClassification", "InterpolationMode")


def segment(lines, node):
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return start, node.end_lineno


def strip(src):
    """Return (code, imported helper names)."""
    tree = ast.parse(src)
    lines = src.splitlines()
    delete = set()   # 1-based line numbers
    to_pass = set()
    helpers = []
    dropped = {"_IMAGENET_CATEGORIES", "_ModelURLs"}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("torchvision")):
            for a in node.names:
                if a.name in HELPERS:
                    helpers.append(a.name)
                    if a.asname:
                        helpers.append(("alias", a.asname, a.name))
                elif a.name not in DROP_IMPORTS and not a.name.endswith("Weights"):
                    raise SystemExit(f"unhandled import {a.name}")
            delete.update(range(node.lineno, node.end_lineno + 1))
        elif isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "WeightsEnum" for b in node.bases):
            delete.update(range(node.lineno, node.end_lineno + 1))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and (
                {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & dropped
                or "Weights" in ast.unparse(node.value)):
            delete.update(range(node.lineno, node.end_lineno + 1))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(t, ast.Name):
                    dropped.add(t.id)
    for node in ast.walk(tree):
        for d in getattr(node, "decorator_list", []):
            name = ast.unparse(d)
            if name.startswith(("register_model", "handle_legacy_interface")):
                delete.update(range(d.lineno, d.end_lineno + 1))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "_log_api_usage_once":
            to_pass.update(range(node.lineno, node.end_lineno + 1))
        if isinstance(node, ast.Assign) and re.fullmatch(r"weights = \w+\.verify\(weights\)", ast.unparse(node)):
            delete.update(range(node.lineno, node.end_lineno + 1))
        if isinstance(node, ast.If) and ast.unparse(node.test) == "weights is not None" and not node.orelse:
            delete.update(range(node.lineno, node.end_lineno + 1))
    out = []
    for i, line in enumerate(lines, 1):
        if i in delete:
            continue
        if i in to_pass:
            if i == min(j for j in to_pass if all(k in to_pass for k in range(j, i + 1))):
                out.append(line[: len(line) - len(line.lstrip())] + "pass")
            continue
        out.append(line)
    code = "\n".join(out) + "\n"
    code = re.sub(r"Optional\[\w*Weights\w*\]", "Optional[Any]", code)
    code = re.sub(r":\s*\w+_Weights\b", ": Any", code)
    code = re.sub(r":\s*WeightsEnum\b", ": Any", code)
    return code, helpers


def helper_source(name):
    rel, _ = HELPERS[name]
    src = (TV / rel).read_text()
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            seg = "\n".join(src.splitlines()[node.lineno - 1 - len(node.decorator_list): node.end_lineno])
            seg, _ = strip(seg)
            return seg
    raise SystemExit(f"no helper {name}")


def build(stem, out_name, driver, size):
    src = (TV / "models" / f"{stem}.py").read_text()
    code, helpers = strip(src)
    need, aliases = [], []
    stack = [h for h in helpers if isinstance(h, str)]
    aliases = [h for h in helpers if isinstance(h, tuple)]
    while stack:
        h = stack.pop()
        if h in need:
            continue
        need.append(h)
        stack.extend(HELPERS[h][1])
    order = [h for h in HELPERS if h in need]  # dependency order as listed
    block = ["# ---- inlined torchvision helpers ----", "import warnings", "import collections", "from itertools import repeat",
             "from typing import Any, Callable, Optional, Union, TypeVar", "V = TypeVar(\"V\")", "import torch", "from torch import Tensor", "import torch.fx",
             "interpolate = torch.nn.functional.interpolate", ""]
    for h in order:
        block.append(helper_source(h))
        block.append("")
    for _, asname, name in aliases:
        block.append(f"{asname} = {name}")
    block.append("# ---- end helpers ----\n")
    # insert helpers after the module's last top-level import
    tree = ast.parse(code)
    last_import = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
    ls = code.splitlines()
    code = "\n".join(ls[:last_import] + [""] + block + ls[last_import:]) + "\n"
    code += (f'\n\nif __name__ == "__main__":\n    {driver}\n    model.eval()\n'
             f"    x = torch.randn(2, 3, {size}, {size})\n    out = model(x)\n")
    (OUT / f"{out_name}.py").write_text(code)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for m in MODELS:
        build(*m)
        print("wrote", m[1])
