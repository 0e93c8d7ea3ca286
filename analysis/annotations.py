"""Shape facts from annotations in the syntax people already use.

- jaxtyping: `Float[Tensor, "b c h w"]`, `Int[torch.Tensor, "batch 3"]`, `*batch`, `...`,
  `#b` (broadcastable), `_` (any), `h-1` style expressions, named `b=3`? (not jaxtyping).
- torchtyping: `TensorType["b", 3]`, `TensorType["batch", "channels"]`.
- torch.fx: `TensorType((Dyn, 3))`.
- shape comments (ours): `x = f(y)  # shape: [B, 3, H, W]` on the assignment line.

Each returns a `TensorValue` whose named dims are symbols; within one function, the same
name is the same symbol. A variadic part (`*batch`, `...`) makes the rank unknown.
"""
from __future__ import annotations

import re

from . import ir
from . import shapes as S
from .ops.spec import TensorValue
from .shapes import UNKNOWN

_JAX_DTYPES = {"Float": "float32", "Float32": "float32", "Float64": "float64", "Float16": "float16",
               "BFloat16": "bfloat16", "Int": "int64", "Int64": "int64", "Int32": "int32",
               "Int8": "int8", "UInt8": "uint8", "Bool": "bool", "Shaped": None, "Num": None,
               "Real": None, "Inexact": None, "Integer": None}

_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")


def dims_from_text(text: str):
    """Parse a jaxtyping shape string into a tuple of dims, or None for unknown rank."""
    dims = []
    for tok in text.split():
        if tok in ("...",) or tok.startswith("*"):
            return None
        tok = tok.lstrip("#")
        if "=" in tok:  # "b=3" documents a value in some libraries
            tok = tok.split("=", 1)[1]
        if tok == "_" or tok.startswith("_"):
            dims.append(UNKNOWN)
        elif tok.isdigit():
            dims.append(int(tok))
        elif _TOKEN.match(tok):
            dims.append(S.sym(tok))
        else:
            dims.append(_expr_dim(tok))
    return tuple(dims)


def _expr_dim(tok: str):
    """`h-1`, `2*c`, `n//2`: a small arithmetic over names and ints."""
    parts = re.findall(r"\d+|[A-Za-z_][A-Za-z_0-9]*|//|[-+*]", tok)
    if "".join(parts) != tok:
        return UNKNOWN
    value, op = None, "+"
    for p in parts:
        if p in ("+", "-", "*", "//"):
            op = p
            continue
        d = int(p) if p.isdigit() else S.sym(p)
        if value is None:
            value = d
        else:
            value = {"+": S.add, "-": S.sub, "*": S.mul, "//": S.floordiv}[op](value, d)
    return value if value is not None else UNKNOWN


def tensor_from_annotation(node, resolve) -> TensorValue | None:
    """The tensor an annotation node describes, or None if it is not a tensor annotation.

    `resolve(node)` gives the qualified name an annotation's head refers to
    (e.g. "jaxtyping.Float", "torch.Tensor"), or None.
    """
    if isinstance(node, ir.Const) and isinstance(node.value, str):
        return None
    if isinstance(node, ir.Subscript):
        head = resolve(node.obj) or ""
        short = head.rsplit(".", 1)[-1]
        index = node.index
        items = index.elts if isinstance(index, ir.TupleE) else (index,)
        if head.startswith("jaxtyping.") and short in _JAX_DTYPES and len(items) == 2:
            spec = items[1]
            if isinstance(spec, ir.Const) and isinstance(spec.value, str):
                return TensorValue(dims_from_text(spec.value), _JAX_DTYPES[short])
            return TensorValue(None, _JAX_DTYPES[short])
        if short == "TensorType" and "torchtyping" in head:
            dims = []
            for it in items:
                if isinstance(it, ir.Const) and isinstance(it.value, str):
                    if it.value in ("...",):
                        return TensorValue(None)
                    dims.append(S.sym(it.value) if _TOKEN.match(it.value) else UNKNOWN)
                elif isinstance(it, ir.Const) and isinstance(it.value, int) and not isinstance(it.value, bool):
                    dims.append(it.value)
                elif isinstance(it, ir.Const) and it.value is Ellipsis:
                    return TensorValue(None)
                else:
                    dims.append(UNKNOWN)
            return TensorValue(tuple(dims))
    if isinstance(node, ir.Call):
        head = resolve(node.func) or ""
        if head.endswith("TensorType") and "fx" in head and node.args:
            arg = node.args[0].value
            if isinstance(arg, (ir.TupleE, ir.ListE)):
                dims = []
                for it in arg.elts:
                    if isinstance(it, ir.Const) and isinstance(it.value, int) and not isinstance(it.value, bool):
                        dims.append(it.value)
                    else:
                        dims.append(UNKNOWN)  # Dyn
                return TensorValue(tuple(dims))
    head = resolve(node) or ""
    if head in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor"):
        return TensorValue(None)
    return None


_SHAPE_COMMENT = re.compile(r"#\s*shape:\s*[\[(]([^\])]*)[\])]")


def shape_from_comment(line: str) -> TensorValue | None:
    """`# shape: [B, 3, H, W]` (or parentheses) at the end of a line."""
    m = _SHAPE_COMMENT.search(line)
    if not m:
        return None
    text = m.group(1).replace(",", " ")
    return TensorValue(dims_from_text(text))
