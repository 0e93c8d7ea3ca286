"""What each nn.Module call computed, kept in the entry that made it (for analysis.summary).

torchinfo lists a model's modules in the order their forward calls start, each with the
output it returned. The engine keeps the same record: every call of a module value
(a user nn.Module instance, a modelled layer, a Sequential) made while a user function runs
appends a `ModuleCall` to that function's entry (`entry.module_calls`), nested under the
call that was open in the same entry (the items of a Sequential). A call of a user module
links the entry that ran its `forward` (`body`), whose own calls continue the tree; memoized
entries keep their records, so a reused result still has its calls.
"""
from __future__ import annotations

from .values import Instance, NNModule


class ModuleCall:
    __slots__ = ("module", "args", "result", "children", "body", "dep_index", "site", "in_branch")

    def __init__(self, module, args, dep_index: int, site=None):
        self.module = module  # the module value called
        self.args = tuple(args)
        self.result = None
        self.children: list = []  # calls made inside it in the same entry (Sequential items)
        self.body = None  # the Entry that ran a user module's forward
        # How many calls of user functions the entry had finished when this one started:
        # places it among them (a helper method's own module calls come in its order).
        self.dep_index = dep_index
        # (name of the caller's first parameter, the called expression, the caller's unit,
        # the call's node id): `self.blocks[2]` says which submodule was called when several
        # hold the same object (a memoized constructor call returns one instance for equal
        # arguments); unit and node find a diagnostic on the call.
        self.site = site
        # Made on one way of an `if` whose test the analysis does not know (both ways run).
        self.in_branch = False


def traced(engine, module, args, site, run):
    """Run `run()` (the call of `module`), recording it in the calling entry."""
    if engine.probing or not engine.stack or (isinstance(module, Instance) and not module.cls.is_module()):
        return run()
    entry = engine.stack[-1].entry
    rec = ModuleCall(module, args, len(entry.deps), _site(site))
    rec.in_branch = engine.stack[-1].blind > 0
    opened = engine.__dict__.setdefault("_open_module_calls", [])
    if opened and opened[-1][0] is entry:
        opened[-1][1].children.append(rec)
    else:
        entry.__dict__.setdefault("module_calls", []).append(rec)
    opened.append((entry, rec))
    engine._last_call_entry = None
    try:
        rec.result = run()
    finally:
        opened.pop()
    body = engine._last_call_entry
    if body is not None and isinstance(module, Instance):
        fwd = module.cls.lookup("forward")
        if getattr(fwd, "unit_key", None) == body.unit_key:
            rec.body = body
            if "owner" not in body.__dict__:
                body.owner = module  # the instance it ran on (value keys equal for reuses)
    return rec.result


def _site(site):
    if site is None:
        return None
    frame, node = site
    params = frame.unit.params
    return (params[0].name if params else None, getattr(node, "func", None),
            (frame.path, frame.unit.key), getattr(node, "nid", None))


def calls_of(entry) -> list:
    return entry.__dict__.get("module_calls", ())


# -- requires_grad ------------------------------------------------------------------------------
# `module.requires_grad_(False)`, `p.requires_grad = False`, `p.requires_grad_(False)`: which
# parameters train. The engine reports each such write here (on the value written to, a module
# or a tensor); it is kept, numbered in the order the writes ran, in the entry that made it.
def requires_grad(engine, value, flag) -> None:
    """`value` (a module or a tensor) had requires_grad set to `flag` (a bool, else unknown)."""
    if engine.probing or not engine.stack:
        return
    seq = engine.__dict__.get("_grad_seq", 0) + 1
    engine._grad_seq = seq
    # Unknown when not a bool, or written on one side of an `if` the analysis cannot decide
    # (the engine runs both).
    flag = flag if isinstance(flag, bool) and not any(f.blind for f in engine.stack) else None
    engine.stack[-1].entry.__dict__.setdefault("grad_flags", []).append((seq, value, flag))


def requires_grad_arg(args, kwargs):
    """The flag of `requires_grad_(flag=True)`."""
    return args[0] if args else kwargs.get("requires_grad", True)


def grad_flags_of(entry) -> list:
    return entry.__dict__.get("grad_flags", ())


# -- parametrizations ---------------------------------------------------------------------------
# `weight_norm(conv)` and `spectral_norm(conv)` return their module, which keeps its shapes; torch
# also changes its parameters (weight_g and weight_v in place of weight) and, in the
# torch.nn.utils.parametrizations spelling, its class and modules (a `parametrizations`
# ModuleDict). The engine reports each call here, kept like the requires_grad writes.
PARAMETRIZATIONS = {
    "torch.nn.utils.weight_norm": ("weight_norm", False),
    "torch.nn.utils.parametrizations.weight_norm": ("weight_norm", True),
    "torch.nn.utils.spectral_norm": ("spectral_norm", False),
    "torch.nn.utils.parametrizations.spectral_norm": ("spectral_norm", True),
}


def parametrized(engine, fn_name, args, kwargs) -> None:
    """A call of one of PARAMETRIZATIONS on a module: (module, tensor name, kind, whether
    the parametrizations spelling, dim) in the entry that made it; dim None for the whole
    tensor, "?" when not known, "maybe" when the call may not run (one way of an `if` the
    analysis cannot decide: the parameters are then not known)."""
    if engine.probing or not engine.stack or not args:
        return
    if not (isinstance(args[0], NNModule) or (isinstance(args[0], Instance) and args[0].cls.is_module())):
        return  # not a module the analysis knows
    kind, new = PARAMETRIZATIONS[fn_name]
    names = ("module", "name", "n_power_iterations" if kind == "spectral_norm" else "dim", "eps", "dim")
    given = dict(zip(names, args))
    given.update(kwargs)
    name = given.get("name", "weight")
    dim = given.get("dim", None if kind == "spectral_norm" else 0)
    if not isinstance(name, str):
        return
    dim = dim if dim is None or (type(dim) is int) else "?"
    if any(f.blind for f in engine.stack):
        dim = "maybe"
    engine.stack[-1].entry.__dict__.setdefault("parametrized", []).append((args[0], name, kind, new, dim))


def parametrized_of(entry) -> list:
    return entry.__dict__.get("parametrized", ())
