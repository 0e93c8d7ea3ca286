"""`torch.autograd.Function` subclasses: `Fn.apply(*args)` runs the static
`Fn.forward(ctx, *args)` (reversible residual stacks, memory-efficient activations).

The ctx is a plain object of its own: what forward stores on it (`ctx.x = ...`) stays on it,
and its methods (`ctx.save_for_backward`, `ctx.mark_dirty`, ...) give Unknown, which no
shape or diagnostic is derived from. backward is never run: shapes flow forward only."""
from __future__ import annotations

from .shapes import UNKNOWN
from .values import ClassVal, FunctionVal, Instance, PartialVal, Ref

_FUNCTION_BASES = ("torch.autograd.Function", "torch.autograd.function.Function",
                   "torch.autograd.function.InplaceFunction")


def is_function_class(cls: ClassVal) -> bool:
    """Derives from torch.autograd.Function (directly or through user classes)."""
    return any(isinstance(b, Ref) and b.name in _FUNCTION_BASES for b in cls.builtin_bases())


def apply_of(engine, cls: ClassVal):
    """The value of `Fn.apply`: forward with a fresh ctx bound first, or Unknown."""
    forward = cls.lookup("forward")
    if not isinstance(forward, FunctionVal):
        return UNKNOWN
    if isinstance(cls.lookup("setup_context"), FunctionVal):
        # The newer form: forward takes no ctx (setup_context gets it apart, after forward).
        return PartialVal(forward, [cls], {}) if "classmethod" in forward.decorators else forward
    ctx_cls = ClassVal("FunctionCtx", [], {}, "", cls.path)
    ctx = engine.new_obj(Instance(ctx_cls))
    if "classmethod" in forward.decorators:
        return PartialVal(forward, [cls, ctx], {})  # (`def forward(cls, ctx, X, ...)`: entmax)
    return PartialVal(forward, [ctx], {})
