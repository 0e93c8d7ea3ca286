"""Deterministic generator of realistic PyTorch model files for the benchmarks.

    python -m bench.gen [--out bench/inputs] [--sizes 40,500,3000,10000]

Each file is plain Python that *looks* like a real model zoo module: CNN blocks
(Conv2d/BatchNorm2d/ReLU/MaxPool2d), attention blocks (view/transpose/softmax/matmul),
MLPs, reshape helper functions, CNN classifiers and small ViT-like models composing them,
each class with `__init__` and `forward`, and a driver at the bottom that calls the models
on concrete inputs (`x = torch.randn(8, 3, 32, 32)`, `y = net3(x)`).

A few deliberate shape bugs are planted (a wrong `nn.Linear` in_features, a bad `view`);
their lines and correct values are recorded in the metadata so the benchmark traces can
remove them or plant new ones. torch is never imported: generating needs nothing but Python.

`generate(target_lines, seed)` returns a `GeneratedFile(text, meta)`; `meta` holds 0-based
line numbers of the anchors the edit traces use (see `Meta`).
"""
from __future__ import annotations

import argparse
import json
import os
import random
from dataclasses import asdict, dataclass, field

HEADER = '''"""Model zoo: convolutional, attention and MLP building blocks (generated for benchmarks)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

'''


@dataclass
class Bug:
    kind: str  # "linear-in-features" | "bad-view"
    line: int  # 0-based line of the buggy expression
    wrong: str  # the wrong token as it appears on the line
    right: str  # the value that fixes it


@dataclass
class Meta:
    lines: int = 0
    seed: int = 0
    classes: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    bugs: list[Bug] = field(default_factory=list)
    # anchors for the edit traces (0-based lines)
    forward_anchors: list[dict] = field(default_factory=list)  # {"cls", "line"}: a statement line in a forward, indent 8
    linear_sites: list[dict] = field(default_factory=list)  # correct nn.Linear(in, out) lines: {"line", "token", "value"}
    helper_defs: list[dict] = field(default_factory=list)  # {"name", "start", "end", "default_line", "default"}
    class_starts: list[int] = field(default_factory=list)
    driver_start: int = 0


@dataclass
class GeneratedFile:
    text: str
    meta: Meta

    def line_count(self) -> int:
        return self.text.count("\n")


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    @property
    def n(self) -> int:
        return len(self.lines)

    def add(self, block: str) -> int:
        """Append a block (dedented, trailing newline optional); return its first line."""
        start = self.n
        self.lines.extend(block.rstrip("\n").split("\n"))
        return start

    def blank(self, k: int = 2) -> None:
        self.lines.extend([""] * k)


class _Gen:
    """Keeps the units generated so far so later units can compose earlier ones."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.w = _Writer()
        self.meta = Meta(seed=seed)
        self.k = 0  # unit counter, makes every name unique
        self.conv_blocks: list[str] = []
        self.attentions: list[tuple[str, int, int]] = []  # (name, dim, heads)
        self.mlps: list[str] = []
        self.token_helpers: list[str] = []  # to_tokens(x) -> (B, HW, C)
        self.patchify: list[tuple[str, int]] = []  # (name, default p)
        self.cnns: list[tuple[str, int, int]] = []  # (name, in_ch, size)
        self.vits: list[tuple[str, int]] = []  # (name, size)
        self.bug_budget: list[str] = []

    def next_id(self) -> int:
        self.k += 1
        return self.k

    # ---- units ------------------------------------------------------------------------

    def conv_block(self) -> None:
        i = self.next_id()
        name = f"ConvBlock{i}"
        act = self.rng.choice(["nn.ReLU(inplace=True)", "nn.ReLU()", "nn.GELU()"])
        start = self.w.add(f'''class {name}(nn.Module):
    """Conv -> BatchNorm -> activation -> 2x2 max-pool; halves H and W."""

    def __init__(self, in_ch: int, out_ch: int, kernel_size: int = 3):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=kernel_size, padding=kernel_size // 2)
        self.bn = nn.BatchNorm2d(out_ch)
        self.act = {act}
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: Tensor) -> Tensor:
        x = self.conv(x)
        x = self.bn(x)
        x = self.act(x)
        x = self.pool(x)
        return x''')
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": start + 12})
        self.conv_blocks.append(name)
        self.w.blank()

    def attention(self) -> None:
        i = self.next_id()
        name = f"Attention{i}"
        dim = self.rng.choice([32, 64, 96, 128])
        heads = self.rng.choice([h for h in (2, 4, 8) if dim % h == 0])
        style = self.rng.random()
        if style < 0.5:
            body = '''        B, N, C = x.shape
        qkv = self.qkv(x)
        qkv = qkv.view(B, N, 3, self.heads, C // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.drop(attn)
        out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(B, N, C)
        return self.proj(out)'''
        else:
            body = '''        B, N, C = x.shape
        q = self.q(x).view(B, N, self.heads, C // self.heads).transpose(1, 2)
        k = self.k(x).view(B, N, self.heads, C // self.heads).transpose(1, 2)
        v = self.v(x).view(B, N, self.heads, C // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(C // self.heads)
        weights = F.softmax(scores, dim=-1)
        out = (weights @ v).transpose(1, 2).contiguous().view(B, N, C)
        return self.proj(out)'''
        if style < 0.5:
            layers = '''        self.qkv = nn.Linear(dim, dim * 3)
        self.drop = nn.Dropout(0.1)'''
        else:
            layers = '''        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)'''
        start = self.w.add(f'''class {name}(nn.Module):
    """Multi-head self-attention over a (B, N, C) token sequence."""

    def __init__(self, dim: int = {dim}, heads: int = {heads}):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
{layers}
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> Tensor:
{body}''')
        fwd = start + 10 + layers.count("\n") + 1
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": fwd + 1})
        self.attentions.append((name, dim, heads))
        self.w.blank()

    def mlp(self) -> None:
        i = self.next_id()
        name = f"Mlp{i}"
        start = self.w.add(f'''class {name}(nn.Module):
    """Two-layer feed-forward block used after attention."""

    def __init__(self, dim: int, hidden: int, out_dim: int | None = None, p: float = 0.1):
        super().__init__()
        out_dim = out_dim or dim
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, out_dim)
        self.drop = nn.Dropout(p)

    def forward(self, x: Tensor) -> Tensor:
        x = self.fc1(x)
        x = self.act(x)
        x = self.drop(x)
        x = self.fc2(x)
        return self.drop(x)''')
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": start + 13})
        self.mlps.append(name)
        self.w.blank()

    def helpers(self) -> None:
        i = self.next_id()
        tok, untok, patch = f"to_tokens_{i}", f"from_tokens_{i}", f"patchify_{i}"
        p = self.rng.choice([2, 4])
        start = self.w.add(f'''def {tok}(x: Tensor) -> Tensor:
    """(B, C, H, W) -> (B, H*W, C)"""
    b, c, h, w = x.shape
    return x.view(b, c, h * w).transpose(1, 2)


def {untok}(x: Tensor, h: int, w: int) -> Tensor:
    """(B, H*W, C) -> (B, C, H, W)"""
    b, n, c = x.shape
    return x.transpose(1, 2).reshape(b, c, h, w)


def {patch}(x: Tensor, p: int = {p}) -> Tensor:
    """Cut (B, C, H, W) into non-overlapping p x p patches: (B, H*W/p^2, p*p*C)."""
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // p, p, w // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)
    return x.reshape(b, (h // p) * (w // p), p * p * c)''')
        self.meta.functions += [tok, untok, patch]
        self.meta.helper_defs.append({"name": tok, "start": start, "end": start + 4})  # end: exclusive
        self.meta.helper_defs.append({"name": untok, "start": start + 6, "end": start + 10})
        self.meta.helper_defs.append({
            "name": patch, "start": start + 12, "end": start + 18,
            "default_line": start + 12, "default": f"p: int = {p}",
        })
        self.token_helpers.append(tok)
        self.patchify.append((patch, p))
        self.w.blank()

    def cnn(self) -> None:
        if not self.conv_blocks:
            self.conv_block()
        i = self.next_id()
        name = f"Net{i}"
        size = self.rng.choice([32, 32, 64, 28])
        in_ch = self.rng.choice([3, 3, 1])
        nblocks = self.rng.choice([2, 3]) if size != 28 else 2
        chans = [in_ch]
        for _ in range(nblocks):
            chans.append(self.rng.choice([16, 32, 64]))
        classes = self.rng.choice([10, 100, 2])
        hid = self.rng.choice([128, 256])
        spatial = size // (2 ** nblocks)
        flat = chans[-1] * spatial * spatial
        blocks = [self.rng.choice(self.conv_blocks[-4:]) for _ in range(nblocks)]
        init_blocks = "\n".join(
            f"        self.block{j + 1} = {blk}({chans[j]}, {chans[j + 1]})" for j, blk in enumerate(blocks)
        )
        fwd_blocks = "\n".join(f"        x = self.block{j + 1}(x)" for j in range(nblocks))
        bug = self.bug_budget.pop() if self.bug_budget else None
        flat_tok = str(flat)
        view_expr = "x.view(x.size(0), -1)"
        if bug == "linear-in-features":
            flat_tok = str(flat + self.rng.choice([-24, 16, 100, flat]))
        elif bug == "bad-view":
            view_expr = f"x.view(x.size(0), {flat // 2}, 3)"
        start = self.w.add(f'''class {name}(nn.Module):
    """Small CNN classifier for {in_ch}x{size}x{size} inputs."""

    def __init__(self, num_classes: int = {classes}):
        super().__init__()
{init_blocks}
        self.fc1 = nn.Linear({flat_tok}, {hid})
        self.fc2 = nn.Linear({hid}, num_classes)
        self.dropout = nn.Dropout(0.5)

    def forward(self, x: Tensor) -> Tensor:
{fwd_blocks}
        x = {view_expr}
        x = F.relu(self.fc1(x))
        x = self.dropout(x)
        return self.fc2(x)''')
        fc1_line = start + 5 + nblocks
        view_line = start + 10 + 2 * nblocks
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": start + 10 + nblocks + 1})
        if bug == "linear-in-features":
            self.meta.bugs.append(Bug(bug, fc1_line, flat_tok, str(flat)))
        elif bug == "bad-view":
            self.meta.bugs.append(Bug(bug, view_line, f"{flat // 2}, 3", "-1"))
        else:
            self.meta.linear_sites.append({"line": fc1_line, "token": flat_tok, "value": flat})
        self.cnns.append((name, in_ch, size))
        self.w.blank()

    def vit(self) -> None:
        if not self.attentions:
            self.attention()
        if not self.mlps:
            self.mlp()
        if not self.token_helpers:
            self.helpers()
        i = self.next_id()
        name = f"TinyVit{i}"
        att, dim, heads = self.rng.choice(self.attentions[-3:])
        mlp = self.rng.choice(self.mlps[-3:])
        tok = self.rng.choice(self.token_helpers[-3:])
        patch = self.rng.choice([4, 8])
        size = self.rng.choice([32, 64])
        start = self.w.add(f'''class {name}(nn.Module):
    """Patch embedding + one transformer block + mean-pool head."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.embed = nn.Conv2d(3, {dim}, kernel_size={patch}, stride={patch})
        self.norm1 = nn.LayerNorm({dim})
        self.attn = {att}({dim}, {heads})
        self.norm2 = nn.LayerNorm({dim})
        self.mlp = {mlp}({dim}, {dim * 4})
        self.head = nn.Linear({dim}, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.embed(x)
        x = {tok}(x)
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        x = x.mean(dim=1)
        return self.head(x)''')
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": start + 14})
        self.meta.linear_sites.append({"line": start + 10, "token": str(dim), "value": dim})
        self.vits.append((name, size))
        self.w.blank()

    # ---- driver -----------------------------------------------------------------------

    def driver(self) -> None:
        self.meta.driver_start = self.w.n
        out = ["# ---- driver: run every model on a concrete batch ----", ""]
        for name, in_ch, size in self.cnns:
            v = name.lower()
            out.append(f"x_{v} = torch.randn(8, {in_ch}, {size}, {size})")
            out.append(f"{v} = {name}()")
            out.append(f"y_{v} = {v}(x_{v})")
        for name, size in self.vits:
            v = name.lower()
            out.append(f"x_{v} = torch.randn(4, 3, {size}, {size})")
            out.append(f"{v} = {name}()")
            out.append(f"y_{v} = {v}(x_{v})")
        for pname, _p in self.patchify:
            out.append(f"patches_{pname} = {pname}(torch.randn(2, 3, 32, 32))")
        self.w.add("\n".join(out))

    def driver_lines(self) -> int:
        return 2 + 3 * (len(self.cnns) + len(self.vits)) + len(self.patchify)


def generate(target_lines: int, seed: int = 0) -> GeneratedFile:
    """A model file of about `target_lines` lines (within a few percent above 100 lines)."""
    g = _Gen(seed)
    g.w.add(HEADER)
    g.w.blank()
    nbugs = max(1, target_lines // 1500) if target_lines >= 200 else 0
    kinds = ["linear-in-features", "bad-view"]
    g.bug_budget = [kinds[j % 2] for j in range(nbugs * 2)]
    g.rng.shuffle(g.bug_budget)
    if target_lines < 120:
        # a tiny file: one block, one CNN, the driver
        g.conv_block()
        g.cnn()
    else:
        units = [g.conv_block, g.conv_block, g.cnn, g.helpers, g.attention, g.mlp, g.cnn, g.vit]
        # the first full rotation gives every unit kind a provider; then pick at random
        for u in units:
            u()
        while g.w.n + g.driver_lines() + 25 < target_lines:
            g.rng.choice(units + [g.cnn, g.vit])()
        # bugs planted only in CNNs: if too few CNNs were made, the budget stays unused
    g.driver()
    text = "\n".join(g.w.lines) + "\n"
    g.meta.lines = text.count("\n")
    return GeneratedFile(text, g.meta)


# ---- files with no driver: the models of issue 12 ------------------------------------------
#
# Groups of a LeNet-style CNN, a multi-head attention block, a two-layer MLP with a residual
# and a reshape helper, with no code that calls them. "annotated": every forward input has a
# jaxtyping annotation (`x: Float[Tensor, "b 1 28 28"]`), so shapes are symbolic in `b` and
# `t`; "symbolic": the same code without annotations, so the engine's generic contexts
# (analysis/generic.py) infer each input's rank and make its dims symbols. One LeNet has a
# wrong `in_features` (with annotations, an error for every `b`).

VARIANTS = ("concrete", "annotated", "symbolic")

SYMBOLIC_HEADER = '''"""Model zoo without a driver: LeNet, attention, MLP blocks (generated for benchmarks)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

'''

_LENET = '''class {name}(nn.Module):
    """LeNet-5 style CNN for 1x28x28 digits."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, {c1}, kernel_size=5, padding=2)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d({c1}, {c2}, kernel_size=5)
        self.fc1 = nn.Linear({tok}, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x{ann}) -> Tensor:
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)'''

_ATTENTION = '''class {name}(nn.Module):
    """Multi-head self-attention over (b, t, {dim}) tokens."""

    def __init__(self, dim: int = {dim}, heads: int = {heads}):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x{ann}) -> Tensor:
        b, t, c = x.shape
        qkv = self.qkv(x).reshape(b, t, 3, self.heads, c // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(out)'''

_MLP = '''class {name}(nn.Module):
    """Two-layer MLP with a residual connection."""

    def __init__(self, dim: int = {dim}, hidden: int = {hidden}):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x{ann}) -> Tensor:
        h = F.gelu(self.fc1(self.norm(x)))
        h = self.fc2(h)
        return x + h'''

_HELPER = '''def {name}(x{ann}, p: int = {p}) -> Tensor:
    """(b, c, h, w) -> (b, h*w/p^2, c*p*p): non-overlapping p x p patches."""
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // p, p, w // p, p)
    x = x.permute(0, 2, 4, 1, 3, 5)
    return x.reshape(b, (h // p) * (w // p), c * p * p)'''


class _GroupGen:
    def __init__(self, seed: int, annotated: bool) -> None:
        self.rng = random.Random(seed)
        self.w = _Writer()
        self.meta = Meta(seed=seed)
        self.annotated = annotated
        self.k = 0

    def ann(self, dims: str) -> str:
        return f': Float[Tensor, "{dims}"]' if self.annotated else ""

    def model(self, template: str, name: str, anchor: int, **kw) -> int:
        start = self.w.add(template.format(name=name, **kw))
        self.meta.class_starts.append(start)
        self.meta.classes.append(name)
        self.meta.forward_anchors.append({"cls": name, "line": start + anchor})
        self.w.blank()
        return start

    def lenet(self, bug: bool) -> None:
        c1, c2 = self.rng.choice([(6, 16), (8, 16), (6, 12)])
        flat = c2 * 5 * 5
        tok = str(flat + 16) if bug else str(flat)
        start = self.model(_LENET, f"LeNet{self.k}", 14, c1=c1, c2=c2, tok=tok, ann=self.ann("b 1 28 28"))
        if bug:
            self.meta.bugs.append(Bug("linear-in-features", start + 8, tok, str(flat)))
        else:
            self.meta.linear_sites.append({"line": start + 8, "token": tok, "value": flat})

    def group(self, bug: bool) -> None:
        self.k += 1
        dim = self.rng.choice([32, 64, 64, 96, 128])
        heads = self.rng.choice([h for h in (2, 4, 8) if dim % h == 0])
        self.lenet(bug)
        self.model(_ATTENTION, f"MultiHeadAttention{self.k}", 11, dim=dim, heads=heads, ann=self.ann(f"b t {dim}"))
        self.model(_MLP, f"ResidualMlp{self.k}", 10, dim=dim, hidden=dim * self.rng.choice([2, 4]),
                   ann=self.ann(f"b t {dim}"))
        self.helper()

    def helper(self) -> None:
        name, p = f"to_patches_{self.k}", self.rng.choice([4, 7])
        start = self.w.add(_HELPER.format(name=name, p=p, ann=self.ann("b 1 28 28")))
        self.meta.functions.append(name)
        self.meta.helper_defs.append({"name": name, "start": start, "end": start + 6,
                                      "default_line": start, "default": f"p: int = {p}"})
        self.w.blank()


def generate_variant(target_lines: int, variant: str, seed: int = 0) -> GeneratedFile:
    """A file of about `target_lines` lines: "concrete" is `generate` (with its driver);
    "annotated" and "symbolic" are groups of issue 12's models with no driver, with and
    without jaxtyping annotations on the forward inputs (the same code otherwise)."""
    if variant == "concrete":
        return generate(target_lines, seed)
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})")
    g = _GroupGen(seed, annotated=variant == "annotated")
    g.w.add(SYMBOLIC_HEADER)
    g.w.blank()
    if target_lines < 120:
        g.k = 1
        g.lenet(bug=False)  # a tiny file: one model and the helper
        g.helper()
    else:
        groups = max(1, (target_lines - g.w.n) // 64)  # a group is 64 lines
        for i in range(groups):
            g.group(bug=i == groups // 2)
    g.meta.driver_start = g.w.n  # no driver: nothing after the models
    text = "\n".join(g.w.lines).rstrip("\n") + "\n"
    g.meta.lines = text.count("\n")
    return GeneratedFile(text, g.meta)


def input_name(variant: str, n: int) -> str:
    return f"model_{n}.py" if variant == "concrete" else f"{variant}_{n}.py"


SIZES = {"tiny": 40, "small": 500, "medium": 3000, "large": 10000}


def variant_label(variant: str, label: str) -> str:
    """The label of a file: the size label for the concrete files (as before), else
    `<variant>-<size label>` ("annotated-medium")."""
    return label if variant == "concrete" else f"{variant}-{label}"


def variant_of(label: str) -> str:
    head = label.split("-", 1)[0]
    return head if "-" in label and head in VARIANTS else "concrete"


def write_inputs(out_dir: str, sizes: dict[str, int] | None = None, seed: int = 0,
                 variants: tuple = ("concrete",)) -> dict[str, str]:
    """Write each variant's file (+ `.meta.json`) for each size; return {label: path},
    by size, the variants of a size together."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for label, n in (sizes or SIZES).items():
        for variant in variants:
            gf = generate_variant(n, variant, seed)
            path = os.path.join(out_dir, input_name(variant, n))
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(gf.text)
            with open(path[:-3] + ".meta.json", "w", encoding="utf-8") as f:
                json.dump(asdict(gf.meta), f, indent=1)
            paths[variant_label(variant, label)] = path
    return paths


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs"))
    ap.add_argument("--sizes", default=",".join(str(v) for v in SIZES.values()))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="concrete, annotated, symbolic")
    a = ap.parse_args(argv)
    sizes = {s: int(s) for s in a.sizes.split(",")}
    for label, path in write_inputs(a.out, sizes, a.seed, tuple(a.variants.split(","))).items():
        with open(path, encoding="utf-8") as f:
            n = f.read().count("\n")
        print(f"{path}: {n} lines")


if __name__ == "__main__":
    main()
