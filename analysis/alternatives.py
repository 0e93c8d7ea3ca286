"""One of a few modules: `nn.Linear(inner, dim) if project_out else nn.Identity()` when the
condition is not known. Calling it calls each and joins the results, so a block whose last
layer depends on a hyperparameter still has a shape wherever the options agree."""
from __future__ import annotations

from .ops.spec import TensorValue  # noqa: F401 - (documentation: results are joined values)
from .values import BoundMethod, ClassVal, Container, FunctionVal, Instance, NNModule, PartialVal, Ref

MAX_OPTIONS = 4
# ... of torch layers or functions alone (`ACT[name]` of an activation registry, a key not
# known): each option is one modelled op, cheap to run.
MAX_TORCH_OPTIONS = 32


class OneOf:
    def __init__(self, options):
        self.options = tuple(options)

    def structural_key(self, key):
        return ("one-of", tuple(key(o) for o in self.options))


def is_callable(v) -> bool:
    # A Ref is a modelled library name: `Act = nn.SiLU` or `nn.ReLU` by a version check, two
    # spellings of weight_norm by a try/except import. Calling one that is no callable gives
    # Unknown, which the join keeps.
    return isinstance(v, (NNModule, Container, FunctionVal, BoundMethod, OneOf, PartialVal, Ref)) or \
        (isinstance(v, Instance) and v.cls.is_module()) or isinstance(v, ClassVal)


def either(a, b):
    """The join of two callables, or None when they are not both callables."""
    if not (is_callable(a) and is_callable(b)):
        return None
    options = []
    for v in (a, b):
        for o in (v.options if isinstance(v, OneOf) else (v,)):
            if all(o is not x for x in options):
                options.append(o)
    cap = MAX_TORCH_OPTIONS if all(torch_ref(o) or isinstance(o, NNModule) for o in options) else MAX_OPTIONS
    return OneOf(options) if len(options) <= cap else None


def torch_ref(v) -> bool:
    """A torch layer class or function by name (`nn.GELU`, `F.silu`)."""
    return isinstance(v, Ref) and v.name.startswith("torch.")
