"""nn modules as values: modelled layers (NNModule), containers (Sequential, ModuleList,
ModuleDict), and the nn.Module methods user classes inherit."""
from __future__ import annotations

from . import calltrace, ir, pybuiltins, values
from .dispatch import from_spec, run_op, to_spec
from .ops.spec import REGISTRY, Dtype, is_tensor
from .alternatives import OneOf
from .frames import escape_receiver
from .shapes import UNKNOWN
from .values import (value_key, added_after_loop, alike, unknown_list, MaybeNone, BoundRef, Container, DictVal, Instance, ListVal, NNModule,
                     SliceVal, named_children, named_modules, named_parameters, parameters, set_dtype,
                     set_training)

_DTYPE_METHODS = {"double": "float64", "float": "float32", "half": "float16", "bfloat16": "bfloat16"}

CONTAINERS = {"torch.nn.Sequential": "Sequential", "torch.nn.ModuleList": "ModuleList",
              "torch.nn.ModuleDict": "ModuleDict", "torch.nn.ParameterList": "ModuleList",
              "torch.nn.ParameterDict": "ModuleDict"}


def construct_module(engine, spec, args, kwargs, site):
    """`nn.Conv2d(3, 16, 3)`: run the constructor spec; remember where each argument is."""
    attrs = run_op(engine, _CtorView(spec), args, kwargs, site)
    if not isinstance(attrs, DictVal):
        return UNKNOWN
    arg_sites = {}
    call_site = None
    if site is not None:
        frame, node = site
        call_site = ((frame.path, frame.unit.key), node.nid)
        names = list(spec.signature.parameters)
        if isinstance(node, ir.Call):
            for i, a in enumerate(node.args):
                if a.star:
                    break
                name = a.name or (names[i] if i < len(names) else None)
                if name:
                    arg_sites[name] = ((frame.path, frame.unit.key), a.value.nid)
    m = NNModule(spec.name, {k: to_spec(v) for k, v in attrs.items.items()}, call_site, arg_sites,
                 site[0].unit.digest if site is not None else "")
    return engine.new_obj(m)


class _CtorView:
    """A module spec seen as a function spec (its constructor), for run_op."""

    def __init__(self, spec):
        self.spec = spec
        self.name = spec.name
        self.fn = spec.fn
        self.signature = spec.signature
        self.kind = "function"
        self.forward = None
        self.constructor = True  # a 0 default given to it is 0 (dispatch.to_spec)

    def check_arguments(self, args, kwargs) -> None:
        self.spec.check_arguments(args, kwargs)  # the constructor's signature is the spec's


def call_module(engine, m, args, kwargs, site):
    if isinstance(m, Container):
        # [stem] + blocks a loop appended + layers added after that loop (a Sequential runs
        # them last: `add_module("conv_last", ...)`, values.added_after_loop)
        suffix = m.__dict__.get("suffix") if m.__dict__.get("loop_element") is not None else None
        element = m.loop_element if suffix else getattr(m, "element", None)
        if m.kind == "Sequential" and getattr(m, "unknown", False) and element is not None and not kwargs:
            prefix = m.items[:getattr(m, "prefix", 0)]
            if not prefix and not suffix:
                return _repeated(engine, element, args, site)
            if len(args) != 1:
                return UNKNOWN
            x = args[0]
            for item in prefix:  # a stem built before the loop that appended the rest
                x = engine.call_value(item, [x], {}, site)
            x = engine.join(x, _repeated(engine, element, [x], site))  # the loop may add none
            for item in suffix or ():
                x = engine.call_value(item, [x], {}, site)
            return x
        if m.kind != "Sequential" or getattr(m, "unknown", False):
            return UNKNOWN
        x = args[0] if args else UNKNOWN
        rest = list(args[1:])
        for item in m.items:
            if isinstance(item, MaybeNone) and not rest and not kwargs:
                # a layer that may be absent (`nn.Sequential(*filter(exists, layers))`)
                x = engine.join(x, engine.call_value(item.value, [x], {}, site))
                continue
            x = engine.call_value(item, [x] + rest, kwargs, site)
            rest, kwargs = [], {}
        return x
    if getattr(m, "same_shape", False):  # a norm or activation layer given as a parameter
        return args[0] if len(args) == 1 and is_tensor(args[0]) and not kwargs else UNKNOWN
    spec = REGISTRY.get(m.name)
    if spec is None or spec.forward is None:
        return UNKNOWN
    return run_op(engine, spec, args, kwargs, site, module=m, forward=True)


def _repeated(engine, layer, args, site):
    """A Sequential of an unknown number (>= 1) of layers that look alike: the join of
    applying it once, twice, ... until the shape is stable (a shape-keeping block: once)."""
    if len(args) != 1:
        return UNKNOWN
    x = engine.call_value(layer, [args[0]], {}, site)
    out = x
    for _ in range(3):
        # (silently: a second layer is only a possibility, and one that fails on what the
        # first gives says the Sequential has one, not that the model fails)
        engine.silent += 1
        try:
            again = engine.call_value(layer, [x], {}, None)
        finally:
            engine.silent -= 1
        joined = engine.join(out, again)
        if value_key(joined) == value_key(out):
            return out
        out, x = joined, again
    return out


def make_container(engine, name, args, kwargs):
    kind = CONTAINERS[name]
    if kind in ("Sequential", "ModuleDict") and len(args) == 1 and isinstance(args[0], DictVal) and \
            getattr(args[0], "unknown", False):
        # A dict filled differently by way (`if representation_size is None: layers["head"]
        # = ...`): one container per way, called each way; keys not known: nothing.
        options = [make_container(engine, name, [o], kwargs) for o in getattr(args[0], "options", ())]
        if options and all(isinstance(o, Container) for o in options):
            return options[0] if len(options) == 1 else OneOf(options)
        element = getattr(args[0], "element", None)
        if options or element is None or kind != "Sequential":
            return UNKNOWN
        c = Container(kind, [])  # filled in a loop: blocks that look alike, in order
        c.unknown, c.element, c.prefix = True, element, 0
        return engine.new_obj(c)
    if kind == "Sequential":
        if len(args) == 1 and isinstance(args[0], DictVal):
            keys = list(args[0].items.keys())
            return engine.new_obj(Container(kind, list(args[0].items.values()), keys))
        return engine.new_obj(Container(kind, list(args), [str(i) for i in range(len(args))]))
    if kind == "ModuleList":
        if not args:
            return engine.new_obj(Container(kind, []))
        items = engine.iterate(None, args[0])
        if items is None:
            element = getattr(args[0], "element", None)
            if element is None or not getattr(args[0], "unknown", False):
                return UNKNOWN
            prefix = getattr(args[0], "prefix", 0)  # known items, then alike ones
            c = Container(kind, list(args[0].items[:prefix]))
            c.unknown, c.element, c.prefix = True, element, prefix
            return engine.new_obj(c)
        return engine.new_obj(Container(kind, list(items)))
    if kind == "ModuleDict":
        src = args[0] if args else DictVal()
        if isinstance(src, DictVal):
            return engine.new_obj(Container(kind, list(src.items.values()), list(src.items.keys())))
        items = engine.iterate(None, src)
        if items is None:
            return UNKNOWN
        keys, vals = [], []
        for it in items:
            if isinstance(it, ListVal) and len(it.items) == 2:
                keys.append(it.items[0])
                vals.append(it.items[1])
        return engine.new_obj(Container(kind, vals, keys))
    return UNKNOWN


def container_item(engine, c, index):
    if c.kind == "ModuleDict":
        if c.keys and index in c.keys:
            return c.items[c.keys.index(index)]
        return UNKNOWN
    if isinstance(index, int) and not isinstance(index, bool):
        if -len(c.items) <= index < len(c.items):
            return c.items[index]
        return UNKNOWN
    if isinstance(index, SliceVal):
        parts = (index.start, index.stop, index.step)
        if all(p is None or type(p) is int for p in parts):
            keys = c.keys[slice(*parts)] if c.keys else None
            return Container(c.kind, c.items[slice(*parts)], keys)
    return UNKNOWN


def container_attr(engine, c, name):
    if c.keys and name in c.keys:
        return c.items[c.keys.index(name)]
    if name == "_modules" and not getattr(c, "unknown", False):
        # (`for m in self.make_embedding._modules.values()`: its parts by name, in order)
        keys = c.keys if c.keys is not None and len(c.keys) == len(c.items) else [str(i) for i in range(len(c.items))]
        return DictVal(dict(zip(keys, c.items)))
    return BoundRef(name, c)


def container_method(engine, c, name, args, kwargs, site):
    if name in _OUTPUT_HOOKS or name in ("apply", "modules", "named_modules", "named_children"):
        return module_method(engine, c, name, args, kwargs, site)
    if name in ("append", "extend", "insert", "add_module", "update"):
        engine._mutated(c)
    if name in ("append", "insert", "add_module") and args:
        added_after_loop(engine, c, [args[-1]])
    if name == "append":
        c.items.append(args[0])
        if c.keys is not None and c.kind == "Sequential":
            c.keys.append(str(len(c.items) - 1))
        return c
    if name == "extend":
        items = engine.iterate(None, args[0])
        added_after_loop(engine, c, items)
        if items is None:
            c.unknown = True
        else:
            if c.keys is not None and c.kind == "Sequential":
                c.keys.extend(str(len(c.items) + i) for i in range(len(items)))
            c.items.extend(items)
        return c
    if name == "insert" and isinstance(args[0], int):
        c.items.insert(args[0], args[1])
        return None
    if name == "add_module" and len(args) == 2:
        # (a name not known, `f"layer{i}"` in a loop of unknown trip count, still adds one)
        c.items.append(args[1])
        if c.keys is not None:
            c.keys.append(args[0] if isinstance(args[0], str) else UNKNOWN)
        return None
    if getattr(c, "unknown", False) and name in ("keys", "values", "children", "items"):
        # Filled by a loop of unknown trip count: its items look like the loop's element.
        element = getattr(c, "element", None)
        if element is None:
            return unknown_list("tuple")
        out = alike(ListVal([UNKNOWN, element], "tuple") if name == "items" else
                    UNKNOWN if name == "keys" else element, "tuple")
        prefix = getattr(c, "prefix", 0)  # the items it had before that loop stay known
        keys = c.keys or [UNKNOWN] * len(c.items)
        known = list(zip(keys, c.items))[:prefix]
        out.items = [ListVal([k, v], "tuple") if name == "items" else k if name == "keys" else v for k, v in known]
        out.prefix = len(known)
        return out
    if name in ("keys",) and c.keys is not None:
        return ListVal(list(c.keys), "tuple")
    if name in ("values", "children", "modules"):
        return ListVal(list(c.items), "tuple") if name != "modules" else UNKNOWN
    if name == "items" and c.keys is not None:
        return ListVal([ListVal([k, v], "tuple") for k, v in zip(c.keys, c.items)], "tuple")
    if name in ("eval", "train"):
        set_training(c, name == "train")
        return c
    if name in _DTYPE_METHODS:
        set_dtype(c, _DTYPE_METHODS[name])
        return c
    if name in ("parameters", "buffers"):
        return ListVal(parameters(c), "list")
    if name == "requires_grad_":
        calltrace.requires_grad(engine, c, calltrace.requires_grad_arg(args, kwargs))
    if name in ("to", "cuda", "cpu", "requires_grad_"):
        return c
    if name == "forward":
        return call_module(engine, c, args, kwargs, site)
    return UNKNOWN


def nn_attr(engine, m, name):
    if name in m.attrs:
        return from_spec(m.attrs[name])
    if name == "training":
        return m.training
    return BoundRef(name, m)


# Walks over a module's parts: module.apply(fn) calls fn on every part, then on the module.
_WALKS = frozenset({"apply", "modules", "named_modules", "children", "named_children"})


def _walk(engine, obj, name, args, kwargs, site):
    if name in ("children", "named_children"):
        found = named_children(obj)
        if found is None or args or kwargs:
            return UNKNOWN
        pairs = found
    else:
        found = named_modules(obj)
        if found is None or (name != "apply" and (args or kwargs)):
            return UNKNOWN if name != "apply" else obj
        pairs = found
    if name == "apply":
        if len(args) == 1 and not kwargs:
            _apply(engine, obj, args[0], site, set())
        return obj
    if name.startswith("named_"):
        return ListVal([ListVal([k, m], "tuple") for k, m in pairs], "tuple")
    return ListVal([m for _, m in pairs], "tuple")


def _apply(engine, module, fn, site, seen) -> None:
    """torch's order: each part's own parts first, then the part, the module last."""
    if module.oid in seen:
        return
    seen.add(module.oid)
    for _, child in named_children(module) or ():
        _apply(engine, child, fn, site, seen)
    engine.call_value(fn, [module], {}, site)


# Hooks that can replace a module's inputs or output (`register_forward_hook(fn)`).
_OUTPUT_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook"})



def module_method(engine, obj, name, args, kwargs, site):
    """Methods every nn.Module has, on modelled layers and on user module instances."""
    if name in ("eval", "train"):
        mode = False if name == "eval" else (args[0] if args and isinstance(args[0], bool) else True)
        set_training(obj, mode)
        return obj
    if name in _DTYPE_METHODS or name == "to":
        dtype = _DTYPE_METHODS.get(name)
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, Dtype):
                dtype = str(a)
        if dtype is not None:
            set_dtype(obj, dtype)
        return obj
    if name in ("parameters", "buffers"):
        return ListVal(parameters(obj), "list")
    if name == "named_parameters":
        return ListVal([ListVal([k, t], "tuple") for k, t in named_parameters(obj)], "list")
    if name == "requires_grad_":  # which parameters train: the summary's
        calltrace.requires_grad(engine, obj, calltrace.requires_grad_arg(args, kwargs))
    if name in _WALKS:
        return _walk(engine, obj, name, args, kwargs, site)
    if name in ("cuda", "cpu", "requires_grad_", "apply", "type", "share_memory", "zero_grad"):
        return obj
    if name in _OUTPUT_HOOKS:
        # A hook may change what the module returns (Whisper's kv-cache hooks prepend cached
        # keys to a Linear's output): from here on its calls are Unknown.
        engine._mutated(obj)
        obj.hooked = True
        return UNKNOWN
    if name == "forward" and isinstance(obj, NNModule):
        return call_module(engine, obj, args, kwargs, site)
    if name == "__super_init__":
        _super_init(engine, obj, args, kwargs)
        return None
    if name == "__plain__getattribute__" and len(args) == 1 and isinstance(args[0], str):
        return engine.get_attr(None, obj, args[0], raw=True)
    if name == "__plain__setattr__" and len(args) == 2 and isinstance(args[0], str):
        engine.set_attr(None, obj, args[0], args[1], raw=True)
        return None
    if name == "__super_forward__":
        inner = obj.attrs.get("__container__") if isinstance(obj, Instance) else None
        if isinstance(inner, Container):
            return call_module(engine, inner, args, kwargs, site)
        layer = _current_layer(obj)
        if layer is not None:
            return call_module(engine, layer, args, kwargs, site)
        return UNKNOWN
    if isinstance(obj, Instance):
        if name == "register_buffer" and len(args) >= 2 and isinstance(args[0], str):
            engine.set_attr(None, obj, args[0], args[1])
            return None
        if name == "register_parameter" and len(args) >= 2 and isinstance(args[0], str):
            engine.set_attr(None, obj, args[0], args[1])
            return None
        if name in ("add_module", "register_module") and len(args) >= 2 and isinstance(args[0], str):
            engine.set_attr(None, obj, args[0], args[1])  # also registers it in a container
            return None
        inner = obj.attrs.get("__container__")
        if isinstance(inner, Container):
            # class Block(nn.ModuleDict / nn.Sequential): the container's own methods.
            return container_method(engine, inner, name, args, kwargs, site)
        if name not in pybuiltins.MODULE_NAMES and not name.startswith("_"):
            # `model.generate(ids, num_beams=2)` of a mixin not read: it may call the model's
            # forward with inputs never seen (batch x beams); so does anything it is handed.
            # (torch's own nn.Module methods call no forward)
            escape_receiver(engine, obj, args, kwargs, site)
    return UNKNOWN


def _current_layer(inst):
    """The torch layer a subclass of it (class MyConv(nn.Conv1d)) is, for `super().forward(x)`:
    the layer its `super().__init__` built, with the attributes the subclass has now (it may
    have set `self.padding` since)."""
    layer = inst.attrs.get("__layer__") if isinstance(inst, Instance) else None
    if not isinstance(layer, NNModule):
        return None
    attrs = {k: to_spec(inst.attrs[k], zero=0) if k in inst.attrs else v for k, v in layer.attrs.items()}
    view = NNModule(layer.name, attrs, layer.site, layer.arg_sites, layer.site_digest)
    view.set_flags(training=inst.training, dtype=layer.dtype)
    return view


def _super_init(engine, inst, args, kwargs):
    """`super().__init__(...)` reaching torch: nn.Sequential & co. keep their items."""
    if not isinstance(inst, Instance):
        return
    mapping = inst.attrs.get(values.MAPPING_ATTR)
    if isinstance(mapping, DictVal):  # a dict subclass: dict(*args, **kwargs)'s items, as update
        from .dispatch import _dict_method
        _dict_method(engine, mapping, "update", list(args[:1]), kwargs)
        return
    for base in inst.cls.builtin_bases():
        kind = CONTAINERS.get(base.name)
        if kind:
            c = make_container(engine, base.name, args, kwargs)
            if isinstance(c, Container):
                engine.set_attr(None, inst, "__container__", c)
            return
        spec = REGISTRY.get(base.name)
        if spec is not None and spec.kind == "module":
            # class MyConv(nn.Conv2d): super().__init__(...) gives the layer's attributes.
            m = construct_module(engine, spec, args, kwargs, None)
            if isinstance(m, NNModule):
                for k, v in m.attrs.items():
                    engine.set_attr(None, inst, k, from_spec(v))
                engine.set_attr(None, inst, "__layer__", m)
            return
