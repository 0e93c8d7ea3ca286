"""A model summary without running the model: torchinfo's table, from the analysis.

For an nn.Module (a user class, or a module-level variable holding one) this gives the
rows torchinfo 1.8.0 would print for `summary(model, input_size=...)`: one row per module
call in the order the calls start (analysis.calltrace records them during the analysis),
each at its depth in the module tree, plus the containers above a called module that are
never called themselves (torchinfo's `add_missing_container_layers`); each row with the
module's output shape and parameter count, then the totals and the parameter memory.

The forward run it reads is, in order of preference: one with the inputs asked for
(`inputs=`, run through the engine now, on the instance the file builds or else one
built with the constructor's defaults), a call the file makes (the known contexts), or the
engine's generic run of a class no call builds (hyperparameters and input dims are
symbols, so parameter counts are expressions in them).

Parameters: a modelled layer's weight tensors; on a user module, the tensors assigned as
`nn.Parameter(...)` or given to `register_parameter` (plain tensors and buffers are not
parameters, as in torch); the items of a ParameterList.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field

from . import shapes as S
from .calltrace import ModuleCall, calls_of, grad_flags_of, parametrized_of
from .frames import Budget, Entry, Frame, _PseudoUnit, start_budget
from .ops.attention import SUBMODULE_CALLS, SUBMODULES
from .ops.spec import Dtype, TensorValue
from .ops.packed import PackedSeq
from .shapes import UNKNOWN
from .alternatives import OneOf
from .values import ClassVal, Container, DictVal, FunctionVal, Instance, ListVal, NNModule, original, user_container_data

MAX_ROWS = 5_000  # a module tree past this is cut (the summary says so)
_BYTES = {"float64": 8, "int64": 8, "complex64": 8, "float32": 4, "int32": 4, "float16": 2,
          "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1, "bool": 1, "complex128": 16}


# -- results ------------------------------------------------------------------------------------
@dataclass
class Row:
    name: str  # the attribute name (torchinfo's var_name); the class name for the model
    type: str  # class name: "Conv2d", "Sequential", "BasicBlock"
    depth: int
    output_shape: tuple | None  # dims (int | Expr | UNKNOWN); None: not called (a container)
    params: object  # int | Expr | UNKNOWN: every parameter of the module, nested ones too
    trainable: object
    recursive: bool = False  # a module already listed above (called again, or shared)
    module: object = field(default=None, repr=False, compare=False)
    error: str | None = None  # a diagnostic on this call (its input does not fit)
    input_shape: tuple | None = None  # the shape of its (first) input, as torchinfo's input_size


@dataclass
class ModelSummary:
    model: str
    path: str
    context: str  # "input" (asked for) | "call" (a call in the code) | "symbolic" | "none"
    inputs: tuple = ()  # the forward's tensor inputs (TensorValue)
    output: object = None  # the forward's result
    rows: list = field(default_factory=list)
    total_params: object = 0
    trainable_params: object = 0
    param_bytes: object = 0
    contexts: int = 0  # how many forward contexts the analysis knows
    truncated: bool = False
    cls: object = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "context": self.context,
            "inputs": [shape_json(t) for t in self.inputs],
            "output_shape": output_json(self.output),
            "rows": [{"name": r.name, "type": r.type, "depth": r.depth,
                      "output_shape": None if r.output_shape is None else [dim_json(d) for d in r.output_shape],
                      "params": dim_json(r.params), "trainable_params": dim_json(r.trainable),
                      "recursive": r.recursive, **({"error": r.error} if r.error else {})}
                     for r in self.rows],
            "total_params": dim_json(self.total_params),
            "trainable_params": dim_json(self.trainable_params),
            "param_bytes": dim_json(self.param_bytes),
            "contexts": self.contexts,
            "truncated": self.truncated,
        }

    def lens_text(self) -> str:
        """`61,706 params · Tensor[64, 1, 28, 28] -> Tensor[64, 10]`."""
        text = f"{count_text(self.total_params)} params"
        if self.context != "none":
            ins = ", ".join(value_text(t) for t in self.inputs) or "()"
            text += f" · {ins} -> {value_text(self.output)}"
            if self.contexts > 1:
                text += f" (+{self.contexts - 1} more context{'s' if self.contexts > 2 else ''})"
        return text


def dim_json(d):
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    return "?" if d is UNKNOWN or d is None else S.dim_text(d)


def shape_json(t):
    if isinstance(t, TensorValue) and t.shape is not None:
        return [dim_json(d) for d in t.shape]
    return None


def output_json(v):
    shape = torchinfo_size(v)
    return None if shape is None else [dim_json(d) for d in shape]


def count_text(n) -> str:
    if isinstance(n, int) and not isinstance(n, bool):
        return f"{n:,}"
    return "?" if n is UNKNOWN else S.dim_text(n)


def value_text(v) -> str:
    if isinstance(v, TensorValue):
        return S.shape_text(v.shape)
    if isinstance(v, ListVal):
        inner = ", ".join(value_text(x) for x in v.items)
        return f"({inner},)" if len(v.items) == 1 else f"({inner})"
    if v is None:
        return "None"
    return "?"


def torchinfo_size(v):
    """The shape torchinfo shows for a module's output: a tensor's; for a tuple or list,
    its first element's (recursively); for a dict (a ModelOutput too), its last value's. None
    when unknown."""
    for _ in range(16):
        v = user_container_data(v) or v  # (a dict subclass: its items)
        if isinstance(v, TensorValue):
            return v.shape
        if isinstance(v, PackedSeq):
            return v.data_shape  # (torchinfo shows a packed sequence's `.data`)
        if isinstance(v, ListVal) and v.items and not getattr(v, "unknown", False):
            v = v.items[0]
        elif isinstance(v, DictVal) and v.items:
            v = list(v.items.values())[-1]
        else:
            return None
    return None


# -- entry points -------------------------------------------------------------------------------
def model_names(host, path: str) -> list:
    """The nn.Module classes defined in the file, in order (what a summary can be asked for)."""
    engine = _engine(host, path)
    if engine is None:
        return []
    return [c.qualname for c in _module_classes(engine, path)]


def summarize(host, path: str, target: str | None = None, inputs=None) -> ModelSummary | None:
    """The summary of `target` (a class or a module-level variable of the file; default:
    the file's outermost model). `inputs`: shapes (tuples of ints) of the forward's
    tensor inputs, run now; else the contexts the analysis knows. None when the file has
    no such module."""
    engine = _engine(host, path)
    if engine is None:
        return None
    env = engine.module_envs.get(path) or {}
    instance, cls = None, None
    if target is None:
        cls = _default_model(engine, path)
    elif isinstance(env.get(target), ClassVal):
        cls = env[target]
    elif _is_module(env.get(target)):
        instance = env[target]
        cls = instance.cls if isinstance(instance, Instance) else None
    else:
        cls = next((c for c in _module_classes(engine, path) if c.qualname == target), None)
    if cls is None and instance is None:
        return None
    name = cls.qualname.rsplit(".", 1)[-1] if cls is not None else _type_name(instance)
    contexts = _contexts(engine, cls, instance)
    if inputs is not None:
        if instance is None and contexts and contexts[0][2]:
            instance = contexts[0][0]  # the model the file builds, not a default one
        return _with_inputs(engine, path, name, cls, instance, inputs)
    if contexts:
        inst, rec, real = contexts[0]
        return _build(engine, path, name, cls, inst, rec, "call" if real else "symbolic", len(contexts))
    inst = instance if instance is not None else _generic_instance(engine, cls)
    if inst is None:
        return ModelSummary(name, path, "none", cls=cls)
    return _build(engine, path, name, cls, inst, None, "none", 0)


def summaries(host, path: str) -> list:
    """A summary of every nn.Module class of the file (for CodeLens)."""
    engine = _engine(host, path)
    if engine is None:
        return []
    out = []
    for cls in _module_classes(engine, path):
        s = summarize(host, path, cls.qualname)
        if s is not None:
            out.append(s)
    return out


def _engine(host, path):
    engines = getattr(host, "engines", None)  # None: a host that keeps no engine (a test double)
    if engines is None or not host.has_file(path):
        return None
    host.analyze(path)  # the analysis already held, unless the text changed since
    return engines.get(path)


# -- which module, which run ------------------------------------------------------------------
def _is_module(v) -> bool:
    if isinstance(v, OneOf):  # `Act = nn.GELU if new_torch else nn.ReLU`: one of them
        return all(_is_module(o) for o in v.options)
    return isinstance(v, (NNModule, Container)) or (isinstance(v, Instance) and v.cls.is_module())


def _module_classes(engine, path) -> list:
    env = engine.module_envs.get(path) or {}
    seen, out = set(), []
    for v in env.values():
        if isinstance(v, ClassVal) and v.path == path and v.is_module() and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _same_class(a, b) -> bool:
    return a is b or (a.path == b.path and a.qualname == b.qualname)


def _default_model(engine, path):
    """The outermost model: a class whose instances no other class of the file contains
    (the last defined of those, as files usually define the parts first)."""
    classes = _module_classes(engine, path)
    inner = set()
    for e in engine.live.values():
        for rec in _walk(calls_of(e)):
            for child in _children(rec.module):
                if isinstance(child[1], Instance):
                    inner.add((child[1].cls.path, child[1].cls.qualname))
    outer = [c for c in classes if (c.path, c.qualname) not in inner]
    return (outer or classes or [None])[-1]


def _walk(recs):
    for r in recs:
        yield r
        yield from _walk(r.children)


def _contexts(engine, cls, instance) -> list:
    """(instance, ModuleCall, real) for each forward run of the model the analysis knows,
    best first: runs of the file itself before generic ones, concrete shapes first."""
    calls = _calls_by_class(engine)
    if instance is not None:
        key = (instance.cls.path, instance.cls.qualname) if isinstance(instance, Instance) else None
        found = [c for c in calls.get(key, ()) if c[0] is instance] if key else \
            [c for cs in calls.values() for c in cs if c[0] is instance]
    else:
        found = list(calls.get((cls.path, cls.qualname), ()))
    if not found and cls is not None and instance is None:
        generic = _generic_run(engine, cls)
        if generic is not None:
            found.append(generic)
    found.sort(key=lambda c: (not c[2], _symbols(c[1].args)))
    return found


def _calls_by_class(engine) -> dict:
    """{(path, class qualname): [(instance, ModuleCall, real)]} over the engine's live
    entries, one per distinct (instance, inputs); built once per analysis."""
    index = engine.__dict__.get("_summary_calls")
    if index is not None:
        return index
    index, seen = {}, set()
    for e in engine.live.values():
        real = e.id in engine.real_ids
        for rec in _walk(calls_of(e)):
            m = rec.module
            if not isinstance(m, Instance):
                continue
            key = (id(m), tuple(value_text(a) for a in rec.args))
            if key not in seen:
                seen.add(key)
                index.setdefault((m.cls.path, m.cls.qualname), []).append((m, rec, real))
    engine._summary_calls = index
    return index


def _symbols(args) -> int:
    n = 0
    for a in args:
        if isinstance(a, TensorValue):
            for d in a.shape or (UNKNOWN,):
                n += 100 if d is UNKNOWN else len(S.free_symbols(d)) if isinstance(d, S.Expr) else 0
    return n


def _generic_instance(engine, cls):
    if cls is None:
        return None
    for e in engine.live.values():
        key = e.key
        if key and key[0] == "<new>" and key[1] is True and isinstance(e.result, Instance) \
                and _same_class(e.result.cls, cls):
            return e.result
    return None


def _generic_run(engine, cls):
    """The engine's run of `forward` for a class no call builds (analysis.infer.run_uncalled):
    a generic instance and symbolic inputs, as a ModuleCall."""
    inst = _generic_instance(engine, cls)
    fwd = cls.lookup("forward")
    if inst is None or not isinstance(fwd, FunctionVal):
        return None
    for e in engine.live.values():
        key = e.key
        if e.unit_key != fwd.unit_key or len(key) != 5 or key[4] is not True or key[0] != fwd.qualname:
            continue
        args = [v for n, v in key[3] if n != "self"]  # a tensor's value key is the tensor
        rec = ModuleCall(inst, args, 0)
        rec.result, rec.body = e.result, e
        if "owner" not in e.__dict__:
            e.owner = inst
        return (inst, rec, False)
    return None


def _with_inputs(engine, path, name, cls, instance, inputs) -> ModelSummary:
    """Run the model's forward on tensors of the given shapes, through the engine."""
    tensors = [TensorValue(tuple(shape), Dtype("float32")) for shape in inputs]
    entry = Entry(("<summary>", path, name), "<summary>")
    frame = Frame(engine, _PseudoUnit("<summary>"), path, entry)
    start_budget(engine, engine.max_steps)
    engine.stack.append(frame)
    engine._collect.append(entry.children)
    try:
        inst = instance
        if inst is None:
            inst = _default_instance(engine, cls)
        if _is_module(inst):
            engine.call_value(inst, list(tensors), {}, None)
    except Budget:
        pass
    finally:
        engine.stack.pop()
        engine._collect.pop()
    recs = [r for r in calls_of(entry) if r.module is inst]
    if not recs:
        return ModelSummary(name, path, "none", tuple(tensors), cls=cls)
    return _build(engine, path, name, cls, inst, recs[0], "input", 1)


def _default_instance(engine, cls):
    """`Cls()` with the constructor's defaults; a generic instance (symbolic
    hyperparameters) when some parameter has none."""
    init = cls.lookup("__init__")
    unit = engine.program.unit(init.path, init.unit_key) if isinstance(init, FunctionVal) else None
    if unit is not None:
        needs = [p for p in unit.params[1:] if p.kind in ("pos", "kwonly") and p.name not in init.defaults]
        if needs:
            return engine.construct(cls, [], {}, None, generic=True)
    return engine.construct(cls, [], {}, None)


# -- the rows -----------------------------------------------------------------------------------
# A module is known by its path from the model (("attr", name) and ("item", index) steps),
# not by object identity: the engine memoizes constructor calls, so `Block(64)` built twice
# is one object, while torch has two modules. So each place in the tree is its own module.
class _Node:
    """A module's place in the tree (torchinfo's LayerInfo as its hooks see it); also the
    row of a container that is never called."""

    __slots__ = ("name", "module", "depth", "parent", "key")

    def __init__(self, name, module, depth, parent, key):
        self.name, self.module, self.depth, self.parent, self.key = name, module, depth, parent, key


def _children(m, built=None) -> list:
    """(name, submodule, path steps) in registration order (torch's `_modules`); with
    `built`, also the modules a parametrization added (see _parametrizations)."""
    views = _parametrization_views(m, built)
    if views:
        return _children(m) + [("parametrizations", views[0], (("attr", "__parametrizations__"),))]
    made = m.__dict__.get("summary_children") if isinstance(m, NNModule) else None
    if made:
        return [(n, x, (("attr", n),)) for n, x in made]
    if isinstance(m, Container):
        keys = m.keys or [str(i) for i in range(len(m.items))]
        return [(str(k), x, (("item", i),)) for i, (k, x) in enumerate(zip(keys, m.items)) if _is_module(x)]
    if isinstance(m, Instance):
        own = [(k, x, (("attr", k),)) for k, x in m.attrs.items() if not k.startswith("__") and _is_module(x)]
        inner = m.attrs.get("__container__")
        if isinstance(inner, Container):
            # class Block(nn.Sequential): its items; a module attribute the container did not
            # take (one of a few, by a factory) is still registered, so still counted.
            items = [(n, x, (("attr", "__container__"),) + steps) for n, x, steps in _children(inner)]
            return items + [c for c in own if all(c[1] is not x for x in inner.items)]
        return own
    if isinstance(m, NNModule):
        return [(k, x, (("attr", k),)) for k, x in _submodules(m)]
    return []


# -- inside a modelled layer --------------------------------------------------------------------
# The engine models nn.TransformerEncoder & co. as one layer; torch holds modules inside them
# (declared with their specs: ops.attention.SUBMODULES). Here they become values of their own,
# made once per layer value, so the tree, the rows and the counts treat them as any module.
_SUBMODULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _submodules(m) -> list:
    """(attribute, module value) for the modules torch registers inside a modelled layer."""
    got = _SUBMODULES.get(m)
    if got is None:
        got = _SUBMODULES[m] = list(_make_submodules(m.attrs, SUBMODULES.get(m.name, ())))
        root = _root(m)
        for _, x in got:
            for layer in (x.items if isinstance(x, Container) else [x]):
                layer.summary_root = root
    return got


def _root(m):
    """The layer value of the engine that a module made here is inside."""
    return m.__dict__.get("summary_root", m)


def _make_submodules(attrs, declared):
    for attr, cls in declared:
        spec = attrs.get(attr) if isinstance(attrs, dict) else None
        if cls == "ModuleList":
            yield attr, _layer_list(attrs, spec)
        elif cls is not None:
            yield attr, _layer_value("torch.nn." + cls, spec if isinstance(spec, dict) else {})
        elif isinstance(spec, dict) and isinstance(spec.get("__module__"), str):
            yield attr, _layer_value(spec["__module__"], spec)  # a module the user passed in


def _layer_value(name, attrs):
    return NNModule(name, attrs)


def _layer_list(attrs, items):
    """TransformerEncoder's `layers`: one module per copy of the layer; when how many is not
    a number, a list of unknown length whose `count` copies hold the parameters."""
    layer = attrs.get("layer")
    if isinstance(items, list):
        return Container("ModuleList", [_layer_value(_module_name(x), x) for x in items])
    c = Container("ModuleList", [])
    c.unknown = True
    if isinstance(layer, dict) and isinstance(attrs.get("num_layers"), S.Expr):
        c.element, c.count = _layer_value(_module_name(layer), layer), attrs["num_layers"]
    return c


def _module_name(spec) -> str:
    name = spec.get("__module__") if isinstance(spec, dict) else None
    return name if isinstance(name, str) else "?"


def _sub_calls(m, args) -> list:
    """(ModuleCall, path steps) for each call a modelled layer makes of its submodules, in
    order (ops.attention.SUBMODULE_CALLS), each with the output shape it gives."""
    order = SUBMODULE_CALLS.get(m.name)
    if order is None:
        return []
    if isinstance(order[1], dict):  # ("norm_first", {False: ..., True: ...})
        order = order[1].get(bool(m.attrs.get(order[0])), ())
    subs = dict(_submodules(m))
    x = args[0] if args else None
    out = []
    for step in order:
        attr, arg = step if isinstance(step, tuple) else (step, None)
        if arg is not None:
            x = args[arg] if arg < len(args) else None
        child = subs.get(attr)
        if isinstance(child, Container):
            for i, item in enumerate(child.items):
                call = _layer_call(item, x)
                out.append((call, (("attr", attr), ("item", i))))
                x = call.result
        elif child is not None:
            call = _layer_call(child, x)
            out.append((call, (("attr", attr),)))
            x = call.result
    return out


def _layer_call(module, x) -> ModuleCall:
    """A submodule's call on x: a layer of its own gives the output of its last call; a
    Linear changes the last dim to out_features; the others keep the shape."""
    call = ModuleCall(module, [x], 0)  # the first input drives every shape here
    if not isinstance(x, TensorValue) or x.shape is None:
        return call
    if module.name in SUBMODULE_CALLS:
        subs = _sub_calls(module, call.args)
        call.result = subs[-1][0].result if subs else x
    elif "out_features" in module.attrs:
        call.result = TensorValue(tuple(x.shape[:-1]) + (module.attrs["out_features"],), x.dtype)
    else:
        call.result = x
    return call


def _tree(root, name, built=None) -> tuple[dict, dict, bool]:
    """({identity: _Node}, {path: identity}, truncated), depth first in registration
    order. Torchinfo knows a module by identity and keeps its last place in the tree (its
    hooks are registered again there, for the module and everything below it); here an
    nn.Module instance is known by its path (see above), and a layer or container by its
    object within the nearest instance around it: `act = nn.ReLU()` used twice in one
    Sequential is one module, as in torch."""
    nodes: dict = {}
    idents: dict = {}
    stack = [(name, root, 0, None, (), _root_scope(root))]
    while stack:
        if len(idents) >= MAX_ROWS:
            return nodes, idents, True
        var, m, depth, parent, path, scope = stack.pop()
        if depth > 64:
            continue  # a module holding one of its ancestors
        ident = _ident(m, path, scope, built)
        idents[path] = ident
        node = nodes[ident] = _Node(var, m, depth, parent, ident)
        inner = _inner_scope(scope, path, m, built, ident)
        stack.extend((n, c, depth + 1, node, path + steps, inner) for n, c, steps in reversed(_children(m, built)))
    return nodes, idents, False


# A scope is (path of the nearest instance around, that instance, the identity of the
# nearest instance around that one constructor run did not make alone (see _once), the
# scope around, the instance's identity).
def _root_scope(root) -> tuple:
    return ((), root, (), None, ())


def _ident(m, path, scope, built=None):
    """Who a module is. A module the constructor of an instance around it made itself
    (`act = nn.ReLU()` put twice in a Sequential, `shared = nn.Linear(8, 8)` handed to two
    blocks) is that object, within that instance. An instance one constructor run made is
    one module wherever the program put it (`ProjectionUpdater(instance=self.net)`), within
    the nearest instance around it that is not (see _built_once). Any other module is its
    name in the instance around it: an object made by a memoized call (a helper
    `conv3x3(c, c)` called twice, `Block(64)` built twice) is one value to the engine but
    several modules to torch. So the modules below a module at two places are the same
    at both, as torch's are."""
    if not path:
        return ()
    if isinstance(m, Instance) and built is not None and _once(m, built):
        return ("one module", scope[2], id(m))
    if not isinstance(m, Instance):
        outer = scope
        while outer is not None:
            if _made_by(m, outer[1]):
                return (outer[4], id(m))
            outer = outer[3]
        if _made_in_one_run(m, built):
            return ("one layer", id(m))
    return (scope[4], path[len(scope[0]):])


def _inner_scope(scope, path, m, built, ident=None):
    """The scope of m's children (see _root_scope); `ident`: m's identity, if known."""
    if not isinstance(m, Instance):
        return scope
    if ident is None:
        ident = _ident(m, path, scope, built)
    once = path and built is not None and _once(m, built)
    return (path, m, scope[2] if once else ident, scope, ident)


def _built_once(engine) -> dict:
    """{id(constructor entry): how many times it ran}. An instance one constructor run
    made, at several places, is one module the program put there (`ProjectionUpdater(
    instance=self.net)`, layers passed in to be shared); one from a memoized call reached
    twice or more, directly or through the memoized calls above it (`Block(64)` twice, a
    helper making a block called twice), is one value to the engine, several modules to
    torch: its own module at each place."""
    got = engine.__dict__.get("_summary_built")
    if got is not None:
        return got
    callers: dict = {}  # id(entry) -> [the entries with a call of it]
    entries: dict = {}
    for e in engine.live.values():
        entries[id(e)] = e
        for dep in e.deps:
            if dep.child is not None:
                callers.setdefault(id(dep.child), []).append(e)
    times: dict = {}

    def runs(e, depth=0) -> int:
        n = times.get(id(e))
        if n is None:
            times[id(e)] = 1  # a cycle, or too deep: once
            parents = callers.get(id(e), ())
            n = 1 if not parents or depth > 200 else min(sum(runs(p, depth + 1) for p in parents), 1_000_000)
            times[id(e)] = n
        return n

    parametrized: dict = {}
    for e in entries.values():
        for module, name, kind, new, dim in parametrized_of(e):
            module = original(module)
            held = parametrized.setdefault(id(module), (module, {}))[1]
            old = held.get(name)
            # Both spellings by a try/except import: the newer, which the `try` imports.
            if old is None or old[2] == "maybe" or (new and not old[1] and dim != "maybe"):
                held[name] = (kind, new, dim)
            elif dim == "maybe":
                continue  # a call that may not run adds nothing to one that does
            elif old != (kind, new, dim) and old[1] == new:
                held[name] = (kind, new, "?")
    got = _Builds({key: runs(e) for key, e in entries.items() if e.key and e.key[0] == "<new>"}, runs, parametrized)
    engine._summary_built = got
    return got


class _Builds(dict):
    """_built_once's counts of constructor runs; `runs` counts any entry's runs;
    `parametrized`: {id(module): (module, {tensor name: (kind, new spelling, dim)})}."""

    def __init__(self, counts, runs, parametrized):
        super().__init__(counts)
        self.runs = runs
        self.parametrized = parametrized


# -- parametrizations ------------------------------------------------------------------------
# weight_norm(m) (calltrace.parametrized) takes m's `weight` out of m's parameters and puts
# weight_g and weight_v in (torch.nn.utils.weight_norm keeps them on m); the
# torch.nn.utils.parametrizations spelling holds them in m.parametrizations.weight (a
# ParametrizationList, original0 and original1) with a _WeightNorm module inside it.
# spectral_norm keeps the tensor's size (weight_orig; parametrizations.weight.original).
_PARAMETRIZATION_MODULE = {"weight_norm": "_WeightNorm", "spectral_norm": "_SpectralNorm"}
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _parametrized(m, built) -> dict:
    """{tensor name: (kind, new spelling, dim)} of the parametrizations applied to m."""
    m = original(m)  # (a model built again with the same arguments is a copy of the first)
    got = built.parametrized.get(id(m)) if isinstance(built, _Builds) else None
    return got[1] if got is not None and got[0] is m else {}


def _own_tensor(m, name):
    layer = m.attrs.get("__layer__") if isinstance(m, Instance) else None
    t = m.attrs.get(name) if isinstance(m, (Instance, NNModule)) else None
    if not isinstance(t, TensorValue) and isinstance(layer, NNModule):
        t = layer.attrs.get(name)
    return t if isinstance(t, TensorValue) else None


def _replacement_tensors(t, kind, dim) -> list:
    """The parameters torch holds for a parametrized tensor t, in its order; None when
    their sizes are not known."""
    if kind == "spectral_norm":
        return [t]
    if dim == "?" or t.shape is None or (dim is not None and not -len(t.shape) <= dim < len(t.shape)):
        return None
    # torch.norm_except_dim: dim -1 (as None) is the norm of the whole tensor.
    g = () if dim in (None, -1) else tuple(d if i == dim % len(t.shape) else 1 for i, d in enumerate(t.shape))
    return [TensorValue(g, t.dtype), t]


def _parametrization_views(m, built):
    """For a module with parametrizations of the new spelling: (the `parametrizations`
    ModuleDict value,); else None. Made once per module and parametrizations."""
    applied = {k: v for k, v in _parametrized(m, built).items() if v[2] != "maybe"}
    if not any(new for _, new, _ in applied.values()):
        return None
    key = tuple(sorted(applied.items(), key=repr))
    m = original(m)  # (a copy of a memoized build holds the same views)
    got = _VIEWS.get(m)
    if got is not None and got[0] == key:
        return got[1]
    plists, names = [], []
    for name, (kind, new, dim) in applied.items():
        t = _own_tensor(m, name)
        if not new or t is None:
            continue
        held = _replacement_tensors(t, kind, dim)
        attrs = {"__tensor__": t}
        if held is None:
            attrs["__unknown__"] = True
        else:
            attrs.update(("original" if len(held) == 1 else f"original{i}", x) for i, x in enumerate(held))
        plist = NNModule("torch.nn.utils.parametrize.ParametrizationList", attrs)
        plist.summary_children = [("0", NNModule("torch.nn.utils.parametrizations." + _PARAMETRIZATION_MODULE[kind], {}))]
        plists.append(plist)
        names.append(name)
    views = (Container("ModuleDict", plists, names),) if plists else None
    _VIEWS[m] = (key, views)
    return views


def _made_in_one_run(m, built) -> bool:
    """Whether layer m was made in the body of a constructor that ran once: one torch
    module wherever the program put it (a layer a model makes and hands to its blocks).
    A layer a helper or factory made is not: a memoized helper's value is several modules."""
    origin = getattr(m, "origin", None)
    if origin is None or not isinstance(built, _Builds) or not str(origin.unit_key).endswith(".__init__"):
        return False
    return built.runs(origin) <= 1


def _once(m, built) -> bool:
    origin = m.__dict__.get("origin")
    return origin is not None and built.get(id(origin), 1) <= 1


def _made_by(m, inst) -> bool:
    origin = getattr(m, "origin", None)
    if origin is None:
        return False
    if not isinstance(inst, Instance):  # a container or layer summarized on its own: made with it
        return origin is getattr(inst, "origin", None)
    for c in inst.cls.mro():
        init = c.attrs.get("__init__")
        if origin.unit_key in (getattr(init, "unit_key", None), c.qualname + ".<new>"):
            return True
    return False


def _paths_in(owner, target, limit: int = 64) -> list:
    """Every path from `owner` to the object `target`, in registration order."""
    out = []
    stack = [(owner, (), 0)]
    while stack and len(out) < limit:
        m, path, depth = stack.pop()
        if m is target:
            out.append(path)
            continue
        if depth > 32:
            continue
        stack.extend((x, path + steps, depth + 1) for _, x, steps in reversed(_children(m)))
    return out


def _canonical(owner, steps):
    """Follow attribute / index steps of the called expression from `owner`, as tree
    path steps; None when they lead nowhere."""
    out, m = [], owner
    for kind, k in steps:
        if kind == "attr" and isinstance(m, Instance) and k in m.attrs:
            out.append(("attr", k))
            m = m.attrs[k]
            continue
        inner = m.attrs.get("__container__") if isinstance(m, Instance) else None
        if isinstance(inner, Container):
            out.append(("attr", "__container__"))
            m = inner
        if not isinstance(m, Container):
            return None
        if kind == "attr" and m.keys and k in m.keys:
            i = m.keys.index(k)
        elif kind == "index" and -len(m.items) <= k < len(m.items):
            i = k % len(m.items)
        else:
            return None
        out.append(("item", i))
        m = m.items[i]
    return tuple(out), m


def _called_steps(expr, self_name):
    """`self.blocks[2].attn` -> (("attr", "blocks"), ("index", 2), ("attr", "attn"))."""
    from . import ir

    steps = []
    while True:
        if isinstance(expr, ir.Attr):
            steps.append(("attr", expr.name))
            expr = expr.obj
        elif isinstance(expr, ir.Subscript) and isinstance(expr.index, ir.Const) \
                and type(expr.index.value) is int:
            steps.append(("index", expr.index.value))
            expr = expr.obj
        else:
            break
    if steps and isinstance(expr, ir.Name) and expr.id == self_name:
        return tuple(reversed(steps))
    return None


def _one_per_branch(recs) -> list:
    """The calls of an entry, without a call that repeats the one just before it on the
    same module with the very same argument objects when both were made in branches of an
    `if` whose condition the analysis does not know: both ways run (`return x +
    self.conv(x)` / `return self.conv(x)`), torch runs one. Outside such branches a module
    called twice on one input (`self.to_k(x)` twice) is two calls, as in torch. A loop
    `x = block(x)` passes the previous result, which a memoized forward gives again as the
    same object: those calls all count."""
    out = []
    for r in recs:
        prev = out[-1] if out else None
        if prev is not None and prev.in_branch and r.in_branch and prev.module is r.module \
                and len(prev.args) == len(r.args) \
                and all(a is b for a, b in zip(prev.args, r.args)) \
                and not any(a is prev.result for a in r.args):
            continue
        out.append(r)
    return out


class _Flattener:
    """Module calls in the order they start (torchinfo's pre-hooks), as (path, output)."""

    def __init__(self, built=None):
        self.built = built
        self.out: list = []
        self.called: set = set()
        self.active: set = set()
        self.truncated = False
        self.diags: dict = {}  # (unit, nid) -> message, from the entries walked
        self._covered: dict = {}  # id(entry) -> ids of the forward entries its module calls ran

    def call(self, rec, path):
        if len(self.out) >= MAX_ROWS:
            self.truncated = True
            return
        self.out.append((path, rec.result, rec))
        if path is not None:
            self.called.add(path)
        m = rec.module
        start = 0
        for child in rec.children:
            sub = None
            if path is not None and isinstance(m, Instance):
                for k in ("__container__", "__layer__"):
                    if m.attrs.get(k) is child.module:
                        sub = path + (("attr", k),)
            elif path is not None and isinstance(m, Container):
                # A Sequential calls its items in order: the next item that is this object.
                for i in range(start, len(m.items)):
                    if m.items[i] is child.module:
                        sub, start = path + (("item", i),), i + 1
                        break
            self.call(child, sub)
        if isinstance(m, NNModule):
            for child, steps in _sub_calls(m, rec.args):
                self.call(child, None if path is None else path + steps)
        body = rec.body
        if body is not None:
            self.entry(body, (body.__dict__.get("owner", m), path))
        views = _parametrization_views(m, self.built) if path is not None else None
        for i, plist in enumerate(views[0].items if views else ()):
            # The forward reads the parametrized tensor, which runs its ParametrizationList:
            # after the module's own calls (a padder first, then the conv's weight).
            where = path + (("attr", "__parametrizations__"), ("item", i))
            tensor = plist.attrs["__tensor__"]
            for sub, steps in ((plist, ()),) + tuple((x, (("attr", n),)) for n, x in plist.summary_children):
                call = ModuleCall(sub, [tensor], 0)
                call.result = tensor
                self.out.append((where + steps, tensor, call))

    def resolve(self, ctx, module, site=None):
        """The tree path of a module called from an entry whose `self` is ctx's owner."""
        owner, owner_path = ctx
        if owner_path is None:
            return None
        if module is owner:
            return owner_path
        if site is not None and site[1] is not None:
            steps = _called_steps(site[1], site[0])
            found = _canonical(owner, steps) if steps else None
            if found is not None and (found[1] is module or _option_of(found[1], module)):
                return owner_path + found[0]
        candidates = _paths_in(owner, module)
        if not candidates:
            return None
        # One object at several places (see above): calls take them in order.
        for rel in candidates:
            if owner_path + rel not in self.called:
                return owner_path + rel
        return owner_path + candidates[0]

    def covered(self, entry) -> set:
        """ids of the forward entries run by the module calls recorded in `entry`, at any depth."""
        got = self._covered.get(id(entry))
        if got is None:
            got = self._covered[id(entry)] = set()  # (also guards a cycle)
            for r in _walk(calls_of(entry)):
                if r.body is not None and id(r.body) not in got:
                    got.add(id(r.body))
                    got |= self.covered(r.body)
        return got

    def entry(self, entry, ctx):
        if id(entry) in self.active or len(self.active) > 64:
            return
        self.active.add(id(entry))
        for d in entry.diags.values():
            if d.severity == "error":
                self.diags.setdefault((d.unit, d.nid), d.message)
        try:
            recs = _one_per_branch(calls_of(entry))
            bodies = self.covered(entry)
            i = 0
            for j, dep in enumerate(entry.deps):
                while i < len(recs) and recs[i].dep_index <= j:
                    self.call(recs[i], self.resolve(ctx, recs[i].module, recs[i].site))
                    i += 1
                # A helper function (or method) called from here: its module calls
                # come at this point, as in torch.
                if not isinstance(dep.fn, FunctionVal) or dep.generic or id(dep.child) in bodies:
                    continue
                if _is_forward(dep):  # a module call no record below this entry has
                    self.call(_dep_call(dep), self.resolve(ctx, dep.args[0]))
                    continue
                sub = ctx
                if dep.args and _is_module(dep.args[0]):
                    sub = (dep.args[0], self.resolve(ctx, dep.args[0]))
                self.entry(dep.child, sub)
            for rec in recs[i:]:
                self.call(rec, self.resolve(ctx, rec.module, rec.site))
        finally:
            self.active.discard(id(entry))


def _is_forward(dep) -> bool:
    """A module's forward run. A call that changes its module (keeps attention scores, an
    autograd Function's ctx) is merged into its caller's entry with the forward runs it made,
    which then show up as the caller's own: a module call, when no record has it."""
    module = dep.args[0] if dep.args else None
    return isinstance(module, Instance) and module.cls.is_module() \
        and getattr(module.cls.lookup("forward"), "unit_key", None) == dep.fn.unit_key


def _dep_call(dep) -> ModuleCall:
    """A module call known from the forward run it made (one merged into an entry whose
    module calls were not kept: an autograd Function's forward calling the blocks)."""
    rec = ModuleCall(dep.args[0], dep.args[1:], 0)
    rec.result, rec.body = dep.child.result, dep.child
    return rec


def _build(engine, path, name, cls, inst, rec, context, n_contexts) -> ModelSummary:
    # A module the program put at two places is one node, at its last place (_tree), as
    # torchinfo lists it; the counts know it as one module (_Params), as module.parameters() does.
    params = _params(engine)
    nodes, idents, truncated = _tree(inst, name, params.built)
    rows: list = []  # _Node (a container never called) or [node, output]
    flat = _Flattener(params.built)
    if rec is not None:
        for e in engine.live.values():  # a diagnostic on the model's own call
            for d in e.diags.values():
                if d.severity == "error":
                    flat.diags.setdefault((d.unit, d.nid), d.message)
        flat.call(rec, ())
        for key, output, call in flat.out:
            node = nodes.get(idents.get(key)) if key is not None else None
            if node is not None and isinstance(node.module, OneOf) and rows and rows[-1][0] is node:
                if value_text(rows[-1][1]) != value_text(output):
                    rows[-1][1] = UNKNOWN  # the modules it may be give different outputs
                continue  # the next module it may be: one call
            if node is not None:
                site = call.site
                error = flat.diags.get((site[2], site[3])) if site is not None else None
                rows.append([node, output, error, torchinfo_size(ListVal(list(call.args), "tuple"))])
        _add_missing_containers(rows)
    else:  # no forward known: the tree alone, as torchinfo lists it without an input
        rows = _dfs_rows(nodes, idents)
    out_rows, listed = [], set()
    for r in rows:
        node, output, error, inputs = (r, None, None, None) if isinstance(r, _Node) else r
        executed = not isinstance(r, _Node)
        total, trainable, _ = params.of(node.module)
        out_rows.append(Row(node.name, _type_name(node.module, params.built), node.depth,
                            torchinfo_size(output) if executed else None, total, trainable,
                            node.key in listed, node.module, error, inputs))
        listed.add(node.key)
    total, trainable, nbytes = params.of(inst)
    return ModelSummary(name, path, context, tuple(rec.args) if rec is not None else (),
                        rec.result if rec is not None else None, out_rows, total, trainable,
                        nbytes, n_contexts, truncated or flat.truncated, cls)


def _params(engine) -> "_Params":
    params = engine.__dict__.get("_summary_params")
    if params is None:
        params = engine._summary_params = _Params(engine)
    return params


def _dfs_rows(nodes, idents) -> list:
    """The tree's rows without a forward run: each module once, at its (last) place."""
    out, seen = [], set()
    for ident in idents.values():
        if ident not in seen:
            seen.add(ident)
            out.append(nodes[ident])
    return out


def _add_missing_containers(rows: list) -> None:
    """Insert, above a listed module, the ancestors that are not listed (a ModuleList whose
    items are called one by one): torchinfo's rule, including its bookkeeping of the
    current branch, so the rows come out the same."""
    def node_of(r):
        return r if isinstance(r, _Node) else r[0]

    current: dict = {}
    for idx, row in enumerate(rows):  # rows grow while we go, as torchinfo's list does
        node = node_of(row)
        hierarchy, parent = {}, node.parent
        while parent is not None and parent.depth > 0:
            hierarchy[parent.depth] = parent
            parent = parent.parent
        rel = 0
        for d in range(1, node.depth):
            if d not in hierarchy:
                break
            if (d not in current or node_of(current[d]).key != hierarchy[d].key) \
                    and hierarchy[d] is not rows[idx + rel - 1]:
                rows.insert(idx + rel, hierarchy[d])
                current[d] = hierarchy[d]
                rel += 1
        current[node.depth] = row
        d = node.depth + 1
        while d in current:
            current.pop(d)
            d += 1
        if len(rows) > MAX_ROWS:
            del rows[MAX_ROWS:]
            return


def _option_of(m, module) -> bool:
    """Is `module` one of the modules a OneOf may be (calling it calls each)?"""
    return isinstance(m, OneOf) and any(o is module for o in m.options)


def _type_name(m, built=None) -> str:
    if _parametrization_views(m, built):
        return "Parametrized" + _type_name(m)  # torch makes a class of that name
    if isinstance(m, OneOf):
        return " or ".join(dict.fromkeys(_type_name(o) for o in m.options))
    if isinstance(m, Instance):
        return m.cls.qualname.rsplit(".", 1)[-1]
    if isinstance(m, NNModule):
        return m.name.rsplit(".", 1)[-1]
    if isinstance(m, Container):
        return m.kind
    return "?"


# -- parameters ---------------------------------------------------------------------------------
_PARAM_ASSIGN = re.compile(
    r"self\.(\w+)\s*(?::[^=\n]*)?=\s*\(?\s*(?:torch\.)?(?:nn\.)?(?:parameter\.)?Parameter\s*\(([^\n]*)")
_PARAM_REGISTER = re.compile(r"register_parameter\(\s*[\"'](\w+)[\"']")


def _call_arguments(text: str, start: int, limit: int = 4000) -> str:
    """The text of a call's arguments from just after its `(` to the matching `)`, over
    several lines (`nn.Parameter(create_mask(...),\n requires_grad=False)`)."""
    depth = 1
    end = min(len(text), start + limit)
    for i in range(start, end):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return text[start:end]


class _Params:
    """Parameter counts (int, or an expression in symbolic hyperparameters) per module:
    every parameter below it, as `module.parameters()` gives them."""

    def __init__(self, engine):
        self.engine = engine
        self._declared: dict = {}  # path -> ({param name}, {frozen name})
        self._by_class: dict = {}  # id(class) -> (class, names, frozen)
        self._counts: dict = {}  # id(module) -> (module, counts): a count depends on the module alone
        self._flags: dict | None = None
        self.built = _built_once(engine)

    def of(self, module):
        cached = self._counts.get(id(module))
        if cached is None or cached[0] is not module:
            cached = self._counts[id(module)] = (module, self._count(module))
        return cached[1]

    def _count(self, module):
        items = self._collect(module, (), _root_scope(module), set(), 0)
        if any(item is None for item in items):  # a container whose items the analysis does not know
            return UNKNOWN, UNKNOWN, UNKNOWN
        # One tensor at several places. In layers: the places in one layer value are modules
        # torch has apart (a memoized constructor call is one value for two modules); places
        # in different layers are a weight tied by assignment (`dec.weight = enc.weight`), one
        # parameter (module.parameters() gives it once). A user module's nn.Parameter may be
        # the very value of another one (a memoized `init_(torch.zeros(n, k))`): each counts.
        places: dict = {}
        for t, _, _, holder in items:
            held = places.setdefault(id(t), {})
            held[holder] = held.get(holder, 0) + 1
        flags = self._grad_flags()
        total, trainable, nbytes = 0, 0, 0
        for t, sized, frozen, _ in items:
            held = places.pop(id(t), None)
            if held is None:
                continue  # counted at its first place
            n = S.prod(sized.shape) if sized.shape is not None else UNKNOWN
            if n is UNKNOWN or (isinstance(n, S.Expr) and _has_unknown(sized.shape)):
                return UNKNOWN, UNKNOWN, UNKNOWN
            layers = [c for h, c in held.items() if h[1] is None]
            n = S.mul(n, (max(layers) if layers else 0) + sum(c for h, c in held.items() if h[1] is not None))
            total = S.add(total, n)
            flag = flags.get(id(t), (None, True))[1]
            if flag is None or trainable is UNKNOWN:
                trainable = UNKNOWN  # requires_grad set to a value the analysis does not know
            elif flag and not frozen:
                trainable = S.add(trainable, n)
            nbytes = S.add(nbytes, S.mul(n, _BYTES.get(str(sized.dtype or "float32"), 4)))
        return total, trainable, nbytes

    def _grad_flags(self) -> dict:
        """{id(tensor): (tensor, requires_grad or None)}: the last requires_grad write the
        engine saw on each parameter (calltrace.requires_grad), a module's reaching all the
        parameters below it."""
        if self._flags is not None:
            return self._flags
        self._flags = {}
        writes = sorted((w for e in self.engine.live.values() for w in grad_flags_of(e)), key=lambda w: w[0])
        for _, value, flag in writes:
            if isinstance(value, TensorValue):
                self._flags[id(value)] = (value, flag)
            elif _is_module(value):
                for item in self._collect(value, (), _root_scope(value), set(), 0):
                    if item is not None:
                        self._flags[id(item[0])] = (item[0], flag)
        return self._flags

    def _collect(self, m, path, scope, seen, depth) -> list:
        """(tensor, its size and dtype, declared frozen, holder) per parameter below `m`, the
        holder being (id of the module value holding it, its name in a user module or None in a layer); None for an unknown
        part. A module shared within one instance counts once (module.parameters() skips
        repeats)."""
        ident = _ident(m, path, scope, self.built)
        if ident in seen or depth > 64:
            return []
        seen.add(ident)
        out: list = []
        if isinstance(m, NNModule):
            own = _layer_tensors(m.attrs) if m.name not in SUBMODULES else \
                ((m.attrs, k, t) for k, t in m.attrs.items() if isinstance(t, TensorValue))
            # A layer's spec copies its dicts (the copies of a TransformerEncoder's layer hold
            # the same tensors): its tensors are held by the layer, whatever their names.
            out.extend((t, TensorValue(t.shape, m.dtype or t.dtype), False, (id(_root(m)), None)) for _, _, t in own)
            if m.attrs.get("__unknown__"):
                return [None]  # a parametrization whose tensors' sizes are not known
            if m.name not in SUBMODULES and not _parametrized(m, self.built):
                return out  # else the modules inside it come below, with their own tensors
        elif isinstance(m, OneOf):  # its count, when every module it may be has the same
            counts = {self._count(o)[:2] for o in m.options}
            if len(counts) != 1 or UNKNOWN in next(iter(counts)):
                return [None]
            seen.discard(ident)  # the module it may be stands at this very place
            return self._collect(m.options[0], path, scope, seen, depth)
        elif isinstance(m, Container):
            count = getattr(m, "count", None)
            if count is not None:  # `count` copies of one layer (a symbolic num_layers)
                return [None if item is None or item[1].shape is None else
                        (item[0], TensorValue((count,) + tuple(item[1].shape), item[1].dtype), item[2], item[3])
                        for item in self._collect(m.element, path + (("item", 0),), scope, seen, depth + 1)]
            if getattr(m, "unknown", False) or any(x is UNKNOWN for x in m.items):
                return [None]
            out.extend((x, x, False, (id(m), i)) for i, x in enumerate(m.items)
                       if isinstance(x, TensorValue))  # a ParameterList's
        elif isinstance(m, Instance):
            names, frozen = self._declared_params(m.cls)
            layer = m.attrs.get("__layer__")
            layer_attrs = layer.attrs if isinstance(layer, NNModule) else {}
            for k, x in m.attrs.items():
                if isinstance(x, TensorValue) and k in names and k not in layer_attrs:
                    out.append((x, x, k in frozen, (id(m), k)))
            if isinstance(layer, NNModule):
                out.extend(self._collect(layer, path + (("attr", "__layer__"),), _inner_scope(scope, path, m, self.built, ident),
                                         seen, depth + 1))
            inner = m.attrs.get("__container__")
            if isinstance(inner, Container) and (getattr(inner, "unknown", False) or UNKNOWN in inner.items):
                out.append(None)
        out = self._parametrized_tensors(m, out)
        inner_scope = _inner_scope(scope, path, m, self.built, ident)
        for _, c, steps in _children(m, self.built):
            out.extend(self._collect(c, path + steps, inner_scope, seen, depth + 1))
        return out

    def _parametrized_tensors(self, m, out) -> list:
        """m's own parameters after weight_norm & co.: the parametrized tensor leaves them;
        torch.nn.utils' spelling puts its replacements (weight_g, weight_v) on m itself, the
        parametrizations spelling in a module below m (_parametrization_views)."""
        applied = _parametrized(m, self.built)
        if not applied:
            return out
        if any(dim == "maybe" for _, _, dim in applied.values()):
            return out + [None]  # parametrized on one way of an undecided `if`: not known
        taken = {name: _own_tensor(m, name) for name in applied}
        out = [x for x in out if x is None or all(x[0] is not t for t in taken.values())]
        for name, (kind, new, dim) in applied.items():
            t = taken[name]
            if new or t is None:
                continue
            held = _replacement_tensors(t, kind, dim)
            if held is None:
                return out + [None]
            out.extend((x, x, False, (id(m), f"{name}#{i}")) for i, x in enumerate(held))
        return out

    def _declared_params(self, cls):
        got = self._by_class.get(id(cls))
        if got is None or got[0] is not cls:
            got = self._by_class[id(cls)] = (cls,) + self._declared_in(cls)
        return got[1], got[2]

    def _declared_in(self, cls):
        names, frozen = set(), set()
        for c in cls.mro():
            got = self._declared.get((c.path, c.qualname))
            if got is None:
                # (the class's own text: `self.weight = weight` of a plain tensor is no
                # parameter because another class of the file declares its weight)
                text = _class_source(_text(self.engine, c.path), c.qualname)
                n, f = set(), set()
                for m in _PARAM_ASSIGN.finditer(text):
                    n.add(m.group(1))
                    if re.search(r"requires_grad\s*=\s*False", _call_arguments(text, m.start(2))):
                        f.add(m.group(1))
                n.update(_PARAM_REGISTER.findall(text))
                got = self._declared[(c.path, c.qualname)] = (n, f)
            names |= got[0]
            frozen |= got[1]
        return names, frozen


def _layer_tensors(attrs: dict):
    """A modelled layer's parameters, as (the dict holding it, its name, tensor): its tensor
    attributes, also those of the layers it holds as dicts; buffers (running stats) are not."""
    for k, x in attrs.items():
        if isinstance(k, str) and (k.startswith(("running_", "__")) or k == "num_batches_tracked"):
            continue
        if isinstance(x, TensorValue):
            yield attrs, k, x
        elif isinstance(x, dict):
            yield from _layer_tensors(x)


def _has_unknown(shape) -> bool:
    return any(d is UNKNOWN for d in shape)


def _class_source(text: str, qualname: str) -> str:
    """The lines of class `qualname` in a file's text: its header, then every line more
    indented (blank lines and comments too); the whole text when no header is found."""
    name = qualname.rsplit(".", 1)[-1]
    header = re.search(rf"^([ \t]*)class[ \t]+{re.escape(name)}\b", text, re.MULTILINE)
    if header is None:
        return text
    indent = len(header.group(1))
    lines = text[header.start():].split("\n")
    kept = [lines[0]]
    for line in lines[1:]:
        body = line.strip()
        if body and not body.startswith("#") and len(line) - len(line.lstrip()) <= indent:
            break
        kept.append(line)
    return "\n".join(kept)


def _text(engine, path) -> str:
    try:
        text = engine.program.text(path)
    except Exception:  # noqa: BLE001 - a library file the host did not load
        text = None
    return text or ""


# -- text ---------------------------------------------------------------------------------------
def render_text(s: ModelSummary) -> str:
    """A table like torchinfo's (with the layer names), then the totals."""
    header = ("Layer (type (var_name):depth-idx)", "Output Shape", "Param #")
    lines = []
    index: dict = {}
    for r in s.rows:
        index[r.depth] = index.get(r.depth, 0) + 1
        indent = "" if r.depth == 0 else "│    " * (r.depth - 1) + "├─"
        label = f"{indent}{r.type} ({r.name})" + (f": {r.depth}-{index[r.depth]}" if r.depth else "")
        shape = "--" if r.output_shape is None else "[" + ", ".join(str(dim_json(d)) for d in r.output_shape) + "]"
        params = "(recursive)" if r.recursive and r.params != 0 else ("--" if r.params == 0 else count_text(r.params))
        lines.append((label, shape, params))
    widths = [max([len(h)] + [len(row[i]) for row in lines]) for i, h in enumerate(header)]
    bar = "=" * (sum(widths) + 4)
    out = [bar, "  ".join(h.ljust(w) for h, w in zip(header, widths)), bar]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in lines]
    out.append(bar)
    out.append(f"Total params: {count_text(s.total_params)}")
    out.append(f"Trainable params: {count_text(s.trainable_params)}")
    out.append(f"Non-trainable params: {count_text(S.sub(s.total_params, s.trainable_params)) if s.total_params is not UNKNOWN and s.trainable_params is not UNKNOWN else '?'}")
    out.append(f"Params size (MB): {_megabytes(s.param_bytes)}")
    if s.context != "none":
        ins = ", ".join(value_text(t) for t in s.inputs)
        out.append(f"Forward ({_CONTEXT_TEXT[s.context]}): {ins} -> {value_text(s.output)}")
    else:
        out.append("Forward: no run of it is known (give --input)")
    for r in s.rows:
        if r.error:
            out.append(f"Error in {r.name} ({r.type}): {r.error}")
    if s.truncated:
        out.append(f"(cut at {MAX_ROWS:,} rows)")
    out.append(bar)
    return "\n".join(out) + "\n"


_CONTEXT_TEXT = {"input": "the inputs given", "call": "a call in the code", "symbolic": "symbolic inputs"}


def _megabytes(n) -> str:
    if isinstance(n, int) and not isinstance(n, bool):
        return f"{n / 1e6:0.2f}"
    return "?" if n is UNKNOWN else f"({S.dim_text(n)}) / 1e6"
