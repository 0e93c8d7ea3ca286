"""Expressions: names, calls, constructors, attributes, operators, truth, iteration,
joins of values and environments, and recording facts and diagnostics. Mixed into
`infer.Engine`."""
from __future__ import annotations

import functools

from . import ir
from . import shapes as S
from .ops.spec import REGISTRY, Dtype, TensorValue, spread_is_neutral
from .shapes import UNKNOWN
from .values import (BoundMethod, BoundRef, ClassVal, Container, DictVal, FunctionVal, Instance,
                     ListVal, MaybeNone, ModuleNS, NNModule, PartialVal, Ref, SliceVal, SOME_INT, TensorOrNumber,
                     is_int_like, is_tensor, own_copy, value_key)
from . import configs, generators, limits, pybuiltins, pysets, tails, tensor_options, values
from .tensor_options import TensorOptions
from . import library_models, partly_known
from .partly_known import PartlyKnown
from .memo import arguments_key
from . import autograd_function, datasources, enums, flags, generic, intervals, solver
from .alternatives import OneOf, either
from .dispatch import (SOME_FLOAT, binary_op, call_external, compare_values, external_attr, is_some_float,
                       subscript_value, unary_op)
from .nnmodules import call_module
from .calltrace import traced
from .frames import (MAX_UNROLL, escape, escape_receiver, over_step_limit, Dep, DiagRecord, Entry, Frame, _PseudoUnit, _LazyIter, _add_fact,
                     _hashable, _is_module_value)


# Tensor methods taking a size as ints or as one sequence (`x.view(*s)` is `x.view(s)`).
_SIZE_VARARGS = frozenset({"view", "reshape", "expand", "repeat", "new_zeros", "new_ones", "new_empty"})
# In-place Tensor methods that change the receiver's shape (the others keep it).
_RESHAPING_IN_PLACE = frozenset({"unsqueeze_", "squeeze_", "transpose_", "t_", "swapdims_", "swapaxes_",
                                 "resize_", "resize_as_", "as_strided_"})


class ExpressionsMixin:
    # =====================================================================================
    # Expressions
    # =====================================================================================
    def eval(self, frame, node, env, record=True):
        self.steps += 1
        if self.steps > self.step_limit:  # the budget, and polling the cancel hook (frames)
            over_step_limit(self)
        t = type(node)
        if t is ir.Name:
            v = self.lookup(frame, node.id, env)
        elif t is ir.Const:
            v = node.value
            return v
        elif t is ir.Call:
            v = self.eval_call(frame, node, env)
        elif t is ir.Attr:
            obj = self.eval(frame, node.obj, env, record)
            v = self.get_attr(frame, obj, node.name, node)
        elif t is ir.Subscript:
            obj = self.eval(frame, node.obj, env, record)
            index = self.eval(frame, node.index, env, record)
            v = self.subscript(frame, obj, index, node)
        elif t is ir.BinOp:
            a = self.eval(frame, node.left, env, record)
            b = self.eval(frame, node.right, env, record)
            v = self.binop(frame, node.op, a, b, node)
        elif t is ir.OpChain:  # `a + b - c ...` left to right, one loop (ir.OpChain)
            v = self.eval(frame, node.first, env, record)
            left = node.first
            for op, right, nid in zip(node.ops, node.rest, node.nids):
                b = self.eval(frame, right, env, record)
                v = self.binop(frame, op, v, b, ir.BinOp(nid, op, left, right))
                left = ir.Node(nid)  # the partial result (no span)
        elif t is ir.UnaryOp:
            v = self.unaryop(frame, node.op, self.eval(frame, node.operand, env, record), node)
        elif t is ir.Compare:
            v = self.compare(frame, node, env)
        elif t is ir.BoolOp:
            v = self.boolop(frame, node, env)
        elif t is ir.IfExp:
            test = self.truth(frame, self.eval(frame, node.test, env, record))
            if test is True:
                v = self.eval(frame, node.body, env, record)
            elif test is False:
                v = self.eval(frame, node.orelse, env, record)
            else:
                v = self._both_ways(frame, node, env, record)
        elif t is ir.TupleE:
            v = self._display(frame, node.elts, env, "tuple")
        elif t is ir.ListE:
            v = self.new_obj(self._display(frame, node.elts, env, "list"))
        elif t is ir.SetE:
            items = self._elts(frame, node.elts, env)
            made = pysets.make(items) if items is not None else UNKNOWN
            v = self.new_obj(made if made is not UNKNOWN else _sequence(items, "set"))
        elif t is ir.DictE:
            v = self.new_obj(self._dict(frame, node, env))
        elif t is ir.Slice:
            v = SliceVal(*(self.eval(frame, x, env, record) if x is not None else None
                           for x in (node.lower, node.upper, node.step)))
            return v
        elif t is ir.Comprehension:
            v = self.comprehension(frame, node, env)
        elif t is ir.Starred:
            v = self.eval(frame, node.value, env, record)
        elif t is ir.FString:
            return self.fstring(frame, node, env)
        elif t is ir.FuncDef:  # a lambda
            return self.make_function(frame, node, env)
        else:
            frame.may_raise = True
            return UNKNOWN
        if record:
            self.record(frame, node.nid, v)
        elif v is UNKNOWN:
            frame.may_raise = True
        return v

    def _both_ways(self, frame, node, env, record):
        """`a if test else b` with the test not known: the join of both, each evaluated with
        what the test says of the flags and maybe-None values it reads (analysis.flags):
        `default_val if val is None else val` is never None."""
        sp = flags.split(self, frame, node.test, env)
        if sp is None:
            return self.join(self.eval(frame, node.body, env, record), self.eval(frame, node.orelse, env, record))
        out = []
        for truth, branch in ((True, node.body), (False, node.orelse)):
            if sp.possible(truth):
                with flags.assumed(self, env, sp.atoms, sp.values_when(truth)) as way_env:
                    out.append(self.eval(frame, branch, way_env, record))
        return out[0] if len(out) == 1 else self.join(out[0], out[1])

    def fstring(self, frame, node, env):
        out = []
        for part in node.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            expr, conv, spec = part
            v = self.eval(frame, expr, env)
            if isinstance(v, S.Expr) or not isinstance(v, (int, float, str, bool)) and v is not None:
                return UNKNOWN
            if spec and limits.format_too_big(spec, (v,)):  # a width past the cap (limits.py)
                return UNKNOWN
            try:
                v = {"r": repr, "s": str, "a": ascii}.get(conv, lambda x: x)(v)
                out.append(format(v, spec))
            except (ValueError, TypeError):
                return UNKNOWN
        return "".join(out)

    def _display(self, frame, elts, env, kind):
        """A tuple or list display. One that spreads an iterable of unknown length
        (`[self.container, *others]`) still surely starts with the items before the spread:
        a loop over it runs its body for them, then for items not known (statements.exec_for)."""
        items, complete = self._items(frame, elts, env)
        if complete:
            return ListVal(items, kind)
        v = _sequence(None, kind)
        if items:
            v.items, v.prefix, v.element = items, len(items), UNKNOWN
        return v

    def _elts(self, frame, elts, env):
        items, complete = self._items(frame, elts, env)
        return items if complete else None

    def _items(self, frame, elts, env):
        """The items of a display, and whether they are all of them: False after a spread of
        an iterable of unknown length (`(*x.shape, 1)` of unknown rank), and the items are
        those before it."""
        out = []
        for e in elts:
            if isinstance(e, ir.Starred):
                items = self.iterate(frame, self.eval(frame, e.value, env))
                if items is None:
                    return out, False
                out.extend(items)
            else:
                out.append(self.eval(frame, e, env))
        return out, True

    def _dict(self, frame, node, env):
        ways = [DictVal()]  # one dict, or one per option of a spread DictOptions
        for k, v in node.items:
            if k is None:
                other = self.eval(frame, v, env)
                if isinstance(other, values.DictOptions) and not any(getattr(d, "unknown", False) for d in ways) \
                        and len(ways) * len(other.options) <= values.DictOptions.MAX_OPTIONS:
                    ways = [DictVal({**d.items, **o.items}) for d in ways for o in other.options]
                    continue
                for d in ways:
                    if isinstance(other, DictVal):
                        d.items.update(other.items)
                    if not isinstance(other, DictVal) or getattr(other, "unknown", False):
                        d.unknown = True  # `{**opts, "k": v}` with opts not known: its keys are not
                continue
            key = self.eval(frame, k, env)
            val = self.eval(frame, v, env)
            if _hashable(key):
                for d in ways:
                    d.items[key] = val
        return ways[0] if len(ways) == 1 else values.dict_options(ways)

    def comprehension(self, frame, node, env):
        results = []
        sub = dict(env)
        self._comp_whole = self._comp_length = None
        ok = self._comp_loop(frame, node, node.generators, sub, results)
        whole, self._comp_whole = self._comp_whole, None
        length, self._comp_length = self._comp_length, None
        if node.kind == "dict":
            d = DictVal()
            for item in results if ok else ():
                if isinstance(item, ListVal) and len(item.items) == 2 and _hashable(item.items[0]):
                    d.items[item.items[0]] = item.items[1]
                else:
                    ok = False
            if not ok:  # too many items, or a key we cannot hash: not an empty dict, Unknown
                d.unknown = True
            return self.new_obj(d)
        kind = "list" if node.kind != "set" else "set"
        if not ok:
            element = results[-1] if results and results[-1] is not _TOO_MANY else None
            if element is None or element is UNKNOWN:
                return UNKNOWN
            # A comprehension over an unknown count (`[Block(dim) for _ in range(depth)]`):
            # items that all look like the one evaluated, how many is not known.
            out = ListVal([], kind)
            out.unknown, out.element = True, element
            if whole is not None:
                out.whole = whole  # one item per piece of a chunk (ops.joining._pieces)
            if length is not None and kind == "list":
                out.length = length  # one item per item of `range(d_model)`: a table's size
            return self.new_obj(out)
        return self.new_obj(ListVal(results, kind))

    def _comp_loop(self, frame, node, gens, env, results) -> bool:
        if not gens:
            results.append(self.eval(frame, node.elt, env))
            if values.too_many(len(results)):  # nested loops multiply (limits.py)
                results.append(_TOO_MANY)
                return False
            return True
        target, it, ifs = gens[0]
        iterable = self.eval(frame, it, env)
        items = self.iterate(frame, iterable)
        if items is None or len(items) > MAX_UNROLL:
            # Unknown length: evaluate once for the facts and for what an item looks like.
            self.assign(frame, target, self.element_of(iterable if items is None else UNKNOWN), env, None)
            if node.kind == "dict" or len(gens) > 1:
                self.eval(frame, node.elt, env)
                results.append(_TOO_MANY)
            else:
                results.append(self.eval(frame, node.elt, env))
                if not ifs and len(node.generators) == 1 and items is None:
                    self._comp_whole = getattr(iterable, "whole", None)  # (after the element's own)
                    self._comp_length = getattr(iterable, "length", None)
            return False
        for item in items:
            self.assign(frame, target, item, env, None)
            keep = True
            for cond in ifs:
                truth = self.truth(frame, self.eval(frame, cond, env))
                if truth is False:
                    keep = False
                    break
                if truth is not True:
                    results.append(_TOO_MANY)  # how many items is not known, nor what they are
                    return False
            if keep and not self._comp_loop(frame, node, gens[1:], env, results):
                return False
        return True

    def lookup(self, frame, name, env):
        if name in env:
            return env[name]
        for outer in frame.closure or ():
            if name in outer:
                return outer[name]
        genv = frame.globals_env
        if genv is not None and genv is not env:
            if name in genv and self._visible(frame.path, name):
                v = genv[name]
                frame.entry.global_reads[(frame.path, name)] = value_key(v)
                return v
            if pybuiltins.builtin(name) is None:
                frame.entry.global_reads[(frame.path, name)] = value_key(UNKNOWN)
        b = pybuiltins.builtin(name)
        return b if b is not None else UNKNOWN

    # -- calls ---------------------------------------------------------------------------
    def eval_call(self, frame, node, env):
        if generators.is_yield(node):
            return generators.record_yield(self, frame, node, env)
        func = self.eval(frame, node.func, env, record=False)
        if func is UNKNOWN:
            self._escape_receiver(frame, node, env)
        args, kwargs = [], {}
        neutral_rest = False  # a generic `**kwargs` spread into a torch op (spread_is_neutral)
        options = None  # a spread DictOptions: the call runs once per option
        alike_at = None  # (position, list): `nn.Sequential(stem, *blocks, head)` with blocks of unknown count
        unknown_call = False  # a spread of unknown length: the rest is still evaluated (facts, diagnostics)
        for a in node.args:
            v = self.eval(frame, a.value, env)
            if a.star == 1:
                items = self.iterate(frame, v)
                if items is None:
                    if _is_sequential(func) and getattr(v, "element", None) is not None and alike_at is None:
                        alike_at = (len(args), v)
                        continue
                    if isinstance(v, tails.TailedShape) and isinstance(func, (Ref, BoundRef)):
                        args.append(tails.Spread(v))  # `x.view(*x.shape[:-1], h, -1)`: for the op's trials
                        continue
                    unknown_call = True
                    continue
                args.extend(items)
            elif a.star == 2:
                if isinstance(v, values.DictOptions) and options is None:
                    options = v.options
                elif isinstance(v, DictVal) and not getattr(v, "unknown", False) \
                        and all(isinstance(k, str) for k in v.items):
                    kwargs.update(v.items)
                elif (_keywords_not_known(v) and isinstance(func, (FunctionVal, BoundMethod, Instance))) or \
                        (_unknown_keywords(v) and isinstance(func, (FunctionVal, ClassVal, BoundMethod))):
                    kwargs[generic.GENERIC_REST] = True  # the **kwargs of a def nobody calls
                elif _unknown_keywords(v) and isinstance(func, Ref) and REGISTRY.get(func.name):
                    neutral_rest = True
                else:
                    escape(self, args, kwargs, (frame, node))  # (the call is not run)
                    return UNKNOWN
            elif a.name:
                kwargs[a.name] = v
            else:
                args.append(v)
        if unknown_call:
            # Not run (`Function.apply(f, a, b, *phi)` with `phi` of unknown length): the defs
            # handed to it may be called in ways not seen.
            escape(self, args, kwargs, (frame, node))
            return UNKNOWN
        if len(node.args) == 1 and node.args[0].star == 1 and len(args) == 1 and args[0] is SOME_INT and \
                isinstance(func, BoundRef) and func.name in _SIZE_VARARGS:
            # `x.reshape(*shape)` of a 1-D shape whose size is not known: one dim, not a
            # whole size (`x.reshape(n)` alone is ambiguous to the spec: ops.spec.sizes_arg)
            args = [ListVal([SOME_INT], "tuple")]
        if alike_at is not None:
            return self._sequential_with_alike(alike_at, args) if not kwargs else UNKNOWN
        if options is not None:
            return self._join_all([self._finish_call(frame, node, func, args, {**kwargs, **o.items}, neutral_rest)
                                   for o in options])
        result = self._finish_call(frame, node, func, args, kwargs, neutral_rest)
        if type(node.func) is ir.Attr and node.func.name in _RESHAPING_IN_PLACE and isinstance(func, BoundRef):
            self._rebind_receiver(frame, node.func.obj, result, env, func.self_value)
        return result

    def _rebind_receiver(self, frame, receiver, result, env, before=None):
        """`p.unsqueeze_(1)` changes the shape of `p` itself: the name (or attribute) holds
        the result from here on, or Unknown when the result is not known. The other names
        of this frame bound to that very tensor change with it (`for x in (start, end):
        x.squeeze_(-1)` squeezes `start` and `end`)."""
        value = result if isinstance(result, TensorValue) else UNKNOWN
        if isinstance(before, TensorValue):
            for name, v in list(env.items()):
                if v is before:
                    env[name] = value
        if type(receiver) is ir.Name:
            env[receiver.id] = value
        elif type(receiver) is ir.Attr:
            self.set_attr(frame, self.eval(frame, receiver.obj, env, record=False), receiver.name, value)

    def _sequential_with_alike(self, alike_at, args):
        """nn.Sequential(*[Block(dim) for _ in range(depth)]): depth alike blocks, after the
        layers given before them (`nn.Sequential(first, *rest)`) and before the layers given
        after them, which it runs last (`nn.Sequential(stem, *blocks, norm, head)`)."""
        at, v = alike_at
        known = args[:at] + list(v.items[:getattr(v, "prefix", 0)])
        prefix = len(known)  # known items, then alike ones
        seq = Container("Sequential", known, [str(i) for i in range(prefix)])
        seq.unknown, seq.element, seq.prefix = True, v.element, prefix
        if args[at:]:
            values.added_after_loop(self, seq, args[at:])
        return self.new_obj(seq)

    def _escape_receiver(self, frame, node, env) -> None:
        """`model.generate(ids)` where `generate` is not known at all (an attribute not
        resolved): frames.escape_receiver. Only a name or one attribute of a name is read
        again: no user code runs twice."""
        target = node.func
        if not isinstance(target, ir.Attr):
            return
        obj = target.obj
        if not (isinstance(obj, ir.Name) or (isinstance(obj, ir.Attr) and isinstance(obj.obj, ir.Name))):
            return
        if target.name.startswith("_"):
            return  # (a private hook of its own library)
        receiver = self.eval(frame, obj, env, record=False)
        if isinstance(receiver, Instance) and target.name not in receiver.attrs:
            # (an attribute of the instance not known is a part, not a method of its class)
            escape_receiver(self, receiver, [], {}, (frame, node))

    def _finish_call(self, frame, node, func, args, kwargs, neutral_rest):
        if neutral_rest and not spread_is_neutral(REGISTRY[func.name], args, kwargs):
            return UNKNOWN
        if isinstance(func, ClassVal) and generic.GENERIC_REST not in kwargs and self._in_plain_factory(frame) \
                and func.is_module():
            # `def resnet50(): return ResNet(Bottleneck, [3, 4, 6, 3])`, a factory nobody
            # calls: the model it builds, with the sizes it leaves to the class as symbols,
            # is a context of the class's methods, like one spreading **kwargs.
            kwargs[generic.GENERIC_REST] = True
        return self.call_value(func, args, kwargs, (frame, node))

    def _in_plain_factory(self, frame) -> bool:
        """The frame runs a plain function nobody calls (a generic root, not a method)."""
        return bool(self.stack) and frame is self.stack[0] and frame.entry.key[-1] is True \
            and frame.entry.unit_key != "<module>" and "." not in frame.entry.unit_key

    def call_value(self, func, args, kwargs, site):
        if isinstance(func, MaybeNone) and not isinstance(func.value, TensorValue):
            # A layer or None (`LocalAttention(...) if local_heads > 0 else None`): calling
            # None raises, so a call that returns called the layer.
            func = func.value
        if isinstance(func, OneOf):
            # Each option may be the one the model never builds (`nn.GroupNorm(...)` only when
            # a flag is set): a failure of one is not reported, like a way of an `if` not decided.
            frame = site[0] if site else None
            if frame is not None:
                frame.quiet += 1
            self.silent += 1
            try:
                return self._join_all([self.call_value(o, args, kwargs, site) for o in func.options])
            finally:
                self.silent -= 1
                if frame is not None:
                    frame.quiet -= 1
        if isinstance(func, (Ref, BoundRef, NNModule, Container)) and (partly_known.involved(args) or partly_known.involved(
                kwargs.values()) or isinstance(getattr(func, "self_value", None), PartlyKnown)):
            return self._call_known_way(func, args, kwargs, site)
        if isinstance(func, (Ref, BoundRef, NNModule)) and (tensor_options.has_options(args) or tensor_options.has_options(
                kwargs.values()) or isinstance(getattr(func, "self_value", None), TensorOptions)):
            joined = self._call_per_option(func, args, kwargs, site)
            if joined is not None:
                return joined
        if isinstance(func, FunctionVal):
            model = library_models.lookup(func)
            if model is not None:
                return model(self, args, kwargs, site)
            return self.call_user(func, args, kwargs, site)
        if isinstance(func, BoundMethod):
            return self.call_value(func.func, [func.self_value] + list(args), kwargs, site)
        if isinstance(func, PartialVal):
            return self.call_value(func.func, func.args + list(args), {**func.kwargs, **kwargs}, site)
        if isinstance(func, ClassVal):
            if enums.is_enum_class(func):
                return enums.call(func, args, kwargs)  # `Mode("deconv")` is a member
            return self.construct(func, args, kwargs, site)
        if getattr(func, "hooked", False):
            return UNKNOWN  # a forward hook may change what it returns (nnmodules._OUTPUT_HOOKS)
        # Module calls are recorded for the model summary (calltrace.py).
        if isinstance(func, Instance):
            return traced(self, func, args, site, lambda: self.call_instance(func, args, kwargs, site))
        if isinstance(func, (NNModule, Container)):
            return traced(self, func, args, site, lambda: call_module(self, func, args, kwargs, site))
        if isinstance(func, (Ref, BoundRef)):
            return call_external(self, func, args, kwargs, site)
        name = generic.same_shape_layer_name(func)
        if name is not None:
            if args and isinstance(args[0], TensorValue):
                return args[0]  # `act_fn(x)`, or the built layer applied (nnmodules.call_module)
            layer = NNModule(name, {}, site=None)
            layer.same_shape = True
            return self.new_obj(layer)
        escape(self, args, kwargs, site, modules=True)  # (a method of an object nothing is known of)
        return UNKNOWN

    def _call_known_way(self, func, args, kwargs, site):
        """A torch op, Tensor method or modelled layer given a partly known tensor
        (partly_known.py): run on the known way, silently; the result partly known. What
        fails whatever the other way gave (an einsum output letter no input has) is reported
        as before, from a run with the partly known values Unknown."""
        if not (isinstance(func, BoundRef) and isinstance(func.self_value, PartlyKnown)):
            self.call_value(func, [partly_known.collapsed(a) for a in args],
                            {k: partly_known.collapsed(v) for k, v in kwargs.items()}, site)
        if isinstance(func, BoundRef) and isinstance(func.self_value, PartlyKnown):
            func = BoundRef(func.name, func.self_value.known)
        args = [partly_known.known(a) for a in args]
        kwargs = {k: partly_known.known(v) for k, v in kwargs.items()}
        self.silent += 1
        try:
            return partly_known.partly(self.call_value(func, args, kwargs, None))
        finally:
            self.silent -= 1

    def _call_per_option(self, func, args, kwargs, site):
        """A torch op, Tensor method or modelled layer given a tensor whose rank differs by
        way (tensor_options.py): run once per option, silently, the results joined (None
        when there are too many combinations)."""
        if isinstance(func, Ref) and getattr(REGISTRY.get(func.name), "kind", None) != "function":
            return None
        receiver = [func.self_value] if isinstance(func, BoundRef) else []
        names = list(kwargs)
        combos = tensor_options.ways(receiver + list(args) + [kwargs[k] for k in names])
        if combos is None:
            return None

        def run_ways():
            outs = []
            for combo in combos:
                f = BoundRef(func.name, combo[0]) if receiver else func
                rest = combo[len(receiver):]
                a, kw = rest[:len(args)], dict(zip(names, rest[len(args):]))
                if isinstance(f, NNModule):
                    outs.append(call_module(self, f, a, kw, None))
                else:
                    outs.append(call_external(self, f, a, kw, None))
            return self._join_all(outs)
        if isinstance(func, NNModule):
            return traced(self, func, args, site, run_ways)  # one row in the model summary
        return run_ways()

    def call_instance(self, inst, args, kwargs, site):
        cls = inst.cls
        if cls.is_module():
            fwd = cls.lookup("forward")
            if isinstance(fwd, FunctionVal):
                return self.call_user(fwd, [inst] + list(args), kwargs, site)
            # A subclass of nn.Sequential or of a modelled layer, without its own forward.
            inner = inst.attrs.get("__container__") or inst.attrs.get("__layer__")
            if inner is not None:
                return self.call_value(inner, args, kwargs, site)
            return UNKNOWN
        call = cls.lookup("__call__")
        if isinstance(call, FunctionVal):
            return self.call_user(call, [inst] + list(args), kwargs, site)
        own = _transform_method(cls, "__call__")
        if own is not None and len(args) == 1 and not kwargs:
            # (no cache is set up by default: cache_size=0)
            return self.call_user(own, [inst] + list(args), {}, site)
        if cls.builtin_bases():
            # `t(x)` of a torch.distributions.Transform subclass: the base's __call__ (not
            # read) calls the class's own methods (`_call`) in ways not seen.
            escape(self, [m for c in cls.mro() for m in c.attrs.values() if isinstance(m, FunctionVal)], {}, site)
        return UNKNOWN

    def construct(self, cls: ClassVal, args, kwargs, site, generic=False):
        """`Net(...)`: a memoized call creating the instance and running __init__."""
        caller = self._caller()
        flags.note_passed_flags(self, list(args) + list(kwargs.values()))
        try:
            key = ("<new>", "probe" if self.probing else generic, value_key(cls),
                   tuple(value_key(a) for a in args), tuple((k, value_key(v)) for k, v in kwargs.items()))
        except RecursionError:
            return UNKNOWN
        entry = self.memo.get(key)
        if entry is not None and not entry.stale and self._valid(entry):
            self._mark_live(entry)
            result = entry.result
            flags.note_reused_part(self, entry)
        else:
            entry = Entry(key, cls.qualname + ".<new>")
            entry.made_after = values.new_mark()  # (own_copy: what this run makes)
            unit = _PseudoUnit(cls.qualname + ".<new>")
            frame = Frame(self, unit, cls.path, entry)
            self.stack.append(frame)
            self._collect.append(entry.children)
            try:
                inst = Instance(cls)
                inst.origin = entry
                if values.is_dict_subclass(cls):
                    inst.attrs[values.MAPPING_ATTR] = DictVal()  # (filled by dict's __init__)
                if getattr(cls, "decorators", None) and any("dataclass" in d for d in cls.decorators):
                    self._dataclass_init(inst, cls, args, kwargs)
                else:
                    init = cls.lookup("__init__")
                    if isinstance(init, FunctionVal):
                        self.call_user(init, [inst] + list(args), kwargs, site, generic=generic)
                    elif init is None and cls.builtin_bases():
                        # class LayerNorm2d(nn.LayerNorm) without its own __init__: the
                        # modelled base's constructor takes the arguments.
                        from .nnmodules import module_method
                        module_method(self, inst, "__super_init__", list(args), kwargs, site)
                result = inst
            finally:
                self.stack.pop()
                self._collect.pop()
            entry.result = result
            entry.may_raise = frame.may_raise
            if frame.pure:
                self._store(entry)
            else:
                self._merge_into_caller(entry)
        if entry.may_raise and self.stack:
            self.stack[-1].may_raise = True
        self.surface_library_errors(cls.path, entry, site)
        if isinstance(result, Instance) and hasattr(entry, "made_after") and not (generic or self.probing):
            # (the memo keeps the instance as built; a generic instance stands for any model
            # of its class and is shared on purpose)
            result = own_copy(result, entry.made_after)
        if generic_rest_key in kwargs and not self.probing and isinstance(result, Instance):
            # Built by a factory that spreads its **kwargs: a context of the class's methods
            # (infer.run_uncalled; also when the factory's run is impure and not collected).
            # Kept with the generic notes, which a generic run reused by a later analysis
            # restores (memo.reused_generic_run) though it builds nothing again. One model per
            # factory and class, the last it builds: the one it returns after building again
            # (`if pretrained: model = Xception(...)`) and setting layers on it.
            factory = self.stack[0].entry.key if self.stack else key
            built = self.__dict__.setdefault("generic_notes", {}).setdefault("factory_built", {})
            built[(key[2], factory)] = result  # (key[2]: the class as the same code in any run)
            if self.stack:  # (the hover names the contexts: ide.context_labels)
                result.context_label = f"the model {self.stack[0].entry.unit_key}() builds"
        if caller is not None and entry.key in self.memo and not self._probe_top():
            caller.entry.deps.append(Dep(cls, tuple(args), tuple(kwargs.items()), arguments_key(args, kwargs, key[3:]),
                                         value_key(result), tuple(self.module_pos.items()), entry, generic))
        return result

    def _dataclass_init(self, inst, cls, args, kwargs):
        args = list(args)
        for f in configs.fields(cls):
            if args:
                value = args.pop(0)
            elif f in kwargs:
                value = kwargs[f]
            else:
                default = cls.lookup(f)
                value = default if default is not None else UNKNOWN
            self.set_attr(None, inst, f, value)
        post = cls.lookup("__post_init__")
        if isinstance(post, FunctionVal):
            self.call_user(post, [inst], {})

    # -- attributes ------------------------------------------------------------------------
    def get_attr(self, frame, obj, name, node=None, raw=False):
        if isinstance(obj, datasources.Loader):
            found = datasources.attr(obj, name)
            return UNKNOWN if found is None else found
        if isinstance(obj, Instance):
            hook = None if raw else obj.cls.attribute_hook("__getattribute__")
            if hook is not None:
                # The class answers every read itself (a config's aliases: `config.hidden_size`
                # read as `n_embd` through its attribute_map); its `super().__getattribute__`
                # is the plain lookup below. Unknown from it: the plain lookup's answer.
                found = self.call_user(hook, [obj, name], {})
                if found is not UNKNOWN:
                    return found
            if name in obj.attrs:
                return obj.attrs[name]
            if name == "training" and obj.cls.is_module():
                return obj.training
            v = obj.cls.lookup(name)
            if isinstance(v, FunctionVal):
                if "property" in v.decorators or "cached_property" in v.decorators:
                    return self.call_user(v, [obj], {})
                if "staticmethod" in v.decorators:
                    return v
                if "classmethod" in v.decorators:
                    return BoundMethod(v, obj.cls)
                return BoundMethod(v, obj)
            if v is not None:
                return v
            inner = obj.attrs.get("__container__")
            if isinstance(inner, Container) and inner.keys and name in inner.keys:
                return inner.items[inner.keys.index(name)]
            fallback = obj.cls.lookup("__getattr__")
            if isinstance(fallback, FunctionVal):  # the class answers names it lacks
                return self.call_user(fallback, [obj, name], {})
            if obj.cls.is_module():
                if name == "_modules":  # its parts by name, in the order they were set
                    return DictVal({k: v for k, v in obj.attrs.items() if _is_module_value(v)})
                return external_attr(self, Ref("torch.nn.Module"), name, obj)
            own = _transform_method(obj.cls, name)
            if own is not None:
                return BoundMethod(own, obj)
            data = values.user_container_data(obj)
            if data is not None:  # (`spec.items()` of a UserDict subclass: its data's)
                return self.get_attr(frame, data, name, node)
            return UNKNOWN
        if isinstance(obj, ClassVal):
            member = enums.member_attr(obj, name)
            if member is not None:
                return member
            v = obj.lookup(name)
            if isinstance(v, FunctionVal) and "classmethod" in v.decorators:
                return BoundMethod(v, obj)
            if v is None and name == "apply" and autograd_function.is_function_class(obj):
                return autograd_function.apply_of(self, obj)
            if v is None and name in ("__name__", "__qualname__"):
                # (`f'{self.block.__name__}{i}'`: the names of a Sequential's blocks)
                return obj.qualname.rsplit(".", 1)[-1] if name == "__name__" else obj.qualname
            return v if v is not None else UNKNOWN
        if isinstance(obj, ModuleNS):
            if obj.env is None:
                return self.library_attr(obj.path, obj.dotted and obj.dotted + "." + name, name)
            return obj.env.get(name, UNKNOWN)
        if obj is UNKNOWN:
            return UNKNOWN
        attr_sym = generic.config_attribute(obj, name)
        if attr_sym is not None:
            return attr_sym
        return external_attr(self, obj, name, None)

    def subscript(self, frame, obj, index, node):
        if isinstance(obj, PartlyKnown) or isinstance(index, PartlyKnown):
            # (partly_known.py: on the known way, silently; what fails whatever the other
            # way gave is reported as before, with that value Unknown)
            subscript_value(self, partly_known.collapsed(obj), partly_known.collapsed(index), (frame, node))
            return partly_known.partly(subscript_value(self, partly_known.known(obj), partly_known.known(index), None))
        return subscript_value(self, obj, index, (frame, node))

    # -- operators -------------------------------------------------------------------------
    def binop(self, frame, op, a, b, node, inplace=False):
        if values.too_big(op, a, b):  # past a size cap: Unknown, never built (limits.py)
            return values.unknown_result(op, a, b)
        if isinstance(a, (TensorOrNumber, TensorOptions)) or isinstance(b, (TensorOrNumber, TensorOptions)):
            # Each way on its own, silently (a failure one way need not be a failure of the
            # model); the results joined. Unknown unless both ways give something.
            ways = [binary_op(self, op, x, y, None, inplace) for x in _ways(a) for y in _ways(b)]
            return functools.reduce(self.join, ways)
        if inplace and isinstance(b, PartlyKnown) and not isinstance(a, PartlyKnown):
            # `out += identity`: in place, the result has out's shape whichever way was taken
            return binary_op(self, op, a, UNKNOWN, (frame, node), inplace)
        if isinstance(a, PartlyKnown) or isinstance(b, PartlyKnown):
            binary_op(self, op, partly_known.collapsed(a), partly_known.collapsed(b), (frame, node), inplace)
            return partly_known.partly(binary_op(self, op, partly_known.known(a), partly_known.known(b), None, inplace))
        return binary_op(self, op, a, b, (frame, node), inplace)

    def unaryop(self, frame, op, a, node):
        if op == "not":
            if isinstance(a, generic.DefaultBool):
                # `bias = not no_bias`: a flag whose default is the other value (no name: the
                # worlds that fix a flag by its name must not give it the same value)
                return generic.DefaultBool(not a.default)
            t = self.truth(frame, a)
            return (not t) if isinstance(t, bool) else (S.not_(a) if isinstance(a, S.Cond) else UNKNOWN)
        if isinstance(a, PartlyKnown):
            unary_op(self, op, UNKNOWN, (frame, node))
            return partly_known.partly(unary_op(self, op, a.known, None))
        return unary_op(self, op, a, (frame, node))

    def compare(self, frame, node, env):
        left = self.eval(frame, node.left, env)
        result = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(frame, comp, env)
            if isinstance(left, PartlyKnown) or isinstance(right, PartlyKnown):
                compare_values(self, op, partly_known.collapsed(left), partly_known.collapsed(right), (frame, node))
                r = partly_known.partly(compare_values(self, op, partly_known.known(left), partly_known.known(right), None))
            else:
                r = compare_values(self, op, left, right, (frame, node))
            if is_tensor(r):
                return r
            result = S.and_(result, r) if not isinstance(result, TensorValue) else result
            if result is False:
                return False
            left = right
        return result

    def boolop(self, frame, node, env):
        last = None
        undecided = []
        for e in node.values:
            v = self.eval(frame, e, env)
            t = self.truth(frame, v)
            if node.op == "and":
                if t is False:
                    return v if not undecided else UNKNOWN
                if t is None:
                    undecided.append(v)
            else:
                if t is True:
                    if len(undecided) == 1 and isinstance(undecided[0], generic.DefaultNone):
                        return self.join(undecided[0], v)  # `dim_out = dim_out or dim`
                    return v if not undecided else UNKNOWN
                if t is None:
                    undecided.append(v)
            last = v
        if undecided:
            if node.op == "or" and len(undecided) == 1 and isinstance(undecided[0], generic.DefaultNone):
                return self.join(undecided[0], last)  # `dim_out = dim_out or dim`
            conds = [u for u in undecided if isinstance(u, S.Cond)]
            if len(conds) == len(undecided):
                return S.and_(*conds) if node.op == "and" else S.or_(*conds)
            return UNKNOWN
        return last

    def truth(self, frame, v):
        """True / False when known, else None. Symbolic conditions go to the solver."""
        if isinstance(v, bool):
            return v
        if isinstance(v, (generic.DefaultBool, generic.DefaultNone, generic.DefaultZero)):
            return None  # a default flag, None or 0 of a generic instance: both ways
        if v is None:
            return False
        if isinstance(v, int):
            return v != 0
        if isinstance(v, (float, str)):
            return bool(v)
        if isinstance(v, S.Cond):
            verdict = self.decide(frame, v)
            return verdict
        if isinstance(v, S.Expr):
            if generic.is_config_attribute(v):
                return None  # `if config.use_bias:` a flag as likely as a size: both ways
            lo, hi = intervals.bounds(v)  # `hidden or dim`: a symbol is a dim >= 1
            return True if lo > 0 or hi < 0 else None
        if getattr(v, "unknown", False):
            return None
        if isinstance(v, ListVal):
            return len(v.items) > 0
        if isinstance(v, DictVal):
            return len(v.items) > 0
        if isinstance(v, Container):
            return len(v.items) > 0
        if isinstance(v, (Instance, NNModule, FunctionVal, ClassVal, BoundMethod, Dtype)):
            return True
        if isinstance(v, Ref):
            return True
        if isinstance(v, TensorValue) and v.values is not None and len(v.values) == 1:
            return bool(v.values[0])  # a one-element tensor of a known value (constant_values)
        return None

    def decide(self, frame, cond):
        verdict, _, _ = solver.check(frame.assumptions, cond, self.timeout_ms)
        if verdict == "valid":
            return True
        if verdict == "unsat":
            return False
        return None

    # -- iteration -------------------------------------------------------------------------
    def iterate(self, frame, v):
        """The items of a finite iterable, or None when unknown."""
        if getattr(v, "unknown", False):
            return None
        if isinstance(v, ListVal):
            return pysets.iteration_order(v) if v.kind == "set" else list(v.items)
        if isinstance(v, DictVal):
            return list(v.items.keys())
        if isinstance(v, Container):
            return list(v.items) if v.kind != "ModuleDict" else list(v.keys or [])
        if isinstance(v, str):
            return list(v)
        if isinstance(v, TensorValue):
            if v.values is not None and v.shape is not None and len(v.shape) == 1:
                return [TensorValue((), v.dtype, (x,)) for x in v.values]  # its values, one each
            if v.shape and isinstance(v.shape[0], int) and v.shape[0] <= 64:
                return [TensorValue(v.shape[1:], v.dtype)] * v.shape[0]
            return None
        if isinstance(v, _LazyIter):
            return v.items
        if enums.is_enum_class(v):
            return enums.members(v)
        data = datasources.items(v)
        if data is not None:
            return data
        if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
            return self.iterate(frame, v.attrs["__container__"])
        data = values.user_container_data(v)
        if data is not None:
            return self.iterate(frame, data)
        return None

    def element_of(self, v):
        """What one item of an iterable of unknown length looks like."""
        element = getattr(v, "element", None)
        if element is not None and getattr(v, "unknown", False):
            return element  # built by a loop of unknown trip count (statements._fixpoint)
        if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
            return self.element_of(v.attrs["__container__"])
        if isinstance(v, TensorValue) and v.shape:
            return TensorValue(v.shape[1:], v.dtype)
        if isinstance(v, (ListVal, Container)) and v.items:
            # (a ModuleList zipped with a list of unknown length: its layers, joined)
            out = v.items[0]
            for x in v.items[1:]:
                out = self.join(out, x)
            return out
        return UNKNOWN

    # =====================================================================================
    # Joins
    # =====================================================================================
    def join(self, a, b):
        if a is b:
            return a
        partly = partly_known.join(self, a, b)
        if partly is not None:
            return partly  # a tensor one way, nothing known the other (partly_known.py)
        if isinstance(a, generic.DefaultNone) or isinstance(b, generic.DefaultNone):
            none, other = (a, b) if isinstance(a, generic.DefaultNone) else (b, a)
            return none.join(other, generic.context_notes(self, "defaults"))
        if (a is None or isinstance(a, MaybeNone)) != (b is None or isinstance(b, MaybeNone)) or \
                (isinstance(a, MaybeNone) and isinstance(b, MaybeNone)):
            # a tensor one way, None the other (or either): None on some paths
            inner = [x.value if isinstance(x, MaybeNone) else x for x in (a, b) if x is not None]
            v = inner[0] if len(inner) == 1 else self.join(inner[0], inner[1])
            # (a tensor, or a layer: `nn.LayerNorm(dim) if use_norm else None`)
            return MaybeNone(v) if isinstance(v, (TensorValue, NNModule, Container, OneOf)) or \
                (isinstance(v, Instance) and v.cls.is_module()) else UNKNOWN
        if isinstance(a, TensorValue) and isinstance(b, TensorValue):
            if a == b:
                return a
            if (generic.is_probe(a) and generic.is_probe(b) and a.probe == b.probe and a.offset == b.offset):
                # Two ways made the same input's rank (padding or not): its uses still tell it.
                return a if a.derived else b
            options = tensor_options.join(self, a, b)
            if options is not None:
                return options  # ranks that differ by way: one of a few tensors
            dtype = a.dtype if a.dtype == b.dtype else None
            if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
                last_a = a.shape if a.shape is not None else a.tail
                last_b = b.shape if b.shape is not None else b.tail
                if last_a and last_b:
                    # Open rank, or two ranks (rotate_half(q) with q of rank 4, then of k of
                    # rank 3): the last dims both have, each kept where they agree.
                    n = min(len(last_a), len(last_b))
                    tail = tuple(x if x == y else UNKNOWN for x, y in zip(last_a[-n:], last_b[-n:]))
                    if any(d is not UNKNOWN for d in tail):
                        lead = a.lead if a.shape is None and b.shape is None and a.lead == b.lead else None
                        return TensorValue(None, dtype, tail=tail, lead=lead)
                return TensorValue(None, dtype)
            return TensorValue(tuple(x if (x == y if not isinstance(x, S.Expr) else x == y) else UNKNOWN
                                     for x, y in zip(a.shape, b.shape)), dtype)
        if isinstance(a, ListVal) and isinstance(b, ListVal) and a.kind == b.kind and len(a.items) == len(b.items):
            if value_key(a) == value_key(b):
                return a
            if getattr(a, "unknown", False) or getattr(b, "unknown", False):
                return self._join_unknown_lists(a, b)
            return ListVal([self.join(x, y) for x, y in zip(a.items, b.items)], a.kind)
        if isinstance(a, ListVal) and isinstance(b, ListVal) and {a.kind, b.kind} == {"list", "tuple"} and \
                len(a.items) == len(b.items) and not (getattr(a, "unknown", False) or getattr(b, "unknown", False)):
            # A tuple one way, `map(f, it)` (a list here) the other: what is iterated or unpacked
            # joins item by item; which type it is stays open (isinstance says Unknown).
            out = ListVal([self.join(x, y) for x, y in zip(a.items, b.items)], "list")
            out.kind_joined = True
            return out
        if isinstance(a, ListVal) and isinstance(b, ListVal) and a.kind == b.kind == "list" and \
                len(a.items) != len(b.items) and not getattr(a, "unknown", False) and not getattr(b, "unknown", False):
            # Appended to on some ways only (`outs = []; if a: outs.append(x); if b: ...`):
            # a list of unknown length whose items all look alike, when they do.
            items = a.items + b.items
            element = values.join_alike(self, items) if items and all(isinstance(x, TensorValue) for x in items) else None
            if element is not None:
                return self.new_obj(values.alike(element, "list"))
        try:
            if value_key(a) == value_key(b):
                return a
        except RecursionError:
            pass
        if isinstance(a, DictVal) and isinstance(b, DictVal) and type(a) in _PLAIN_DICTS and type(b) in _PLAIN_DICTS:
            # Keyword dicts that differ by way (`{key: val} if route else {}`): one of them
            # (a few), else a dict of keys not known (spread, it may pass any parameter).
            return self.new_obj(values.dict_options([a, b]))
        if is_int_like(a) and is_int_like(b):
            return SOME_INT  # two ints (a loop counter, dims of two ways): an int all the same
        if _float_like(a) and _float_like(b):
            return SOME_FLOAT  # (`0.5 if scale_residual else 1.0`): a float all the same
        either_way = _tensor_or_number(self, a, b)
        if either_way is not None:
            return either_way
        options = either(a, b)  # two modules: calling the join calls each
        return options if options is not None else UNKNOWN

    def _join_unknown_lists(self, a, b):
        """Two lists of which one has an unknown length: items alike (`x.split(c)` on two
        ways of a version check) when both are and their elements join, else unknown."""
        ea, eb = getattr(a, "element", None), getattr(b, "element", None)
        if getattr(a, "unknown", False) and getattr(b, "unknown", False) and ea is not None and eb is not None \
                and not getattr(a, "prefix", 0) and not getattr(b, "prefix", 0):
            element = self.join(ea, eb)
            if element is not UNKNOWN:
                return self.new_obj(values.alike(element, a.kind))
        return self.new_obj(values.unknown_list(a.kind))

    def _join_all(self, values):
        out = values[0]
        for v in values[1:]:
            out = self.join(out, v)
        return out

    def join_env(self, *envs):
        live = [e for e in envs if e is not None]
        if not live:
            return None
        if len(live) == 1:
            return live[0]
        out = {}
        # A name bound on only some paths is what those paths bound: reading it where a
        # path left it unbound raises (NameError, UnboundLocalError), so no value comes
        # from there (`if cfg.norm is None: norm = nn.BatchNorm2d` and no else).
        for e in live:
            for k, v in e.items():
                out[k] = self.join(out[k], v) if k in out else v
        return out

    # =====================================================================================
    # Facts and diagnostics
    # =====================================================================================
    def record(self, frame, nid, value, target=False):
        if isinstance(value, MaybeNone):
            value = value.value  # where the line holds a tensor, it has this shape
        if isinstance(value, PartlyKnown) or \
                isinstance(value, ListVal) and any(isinstance(x, PartlyKnown) for x in value.items):
            # Known on some ways only (partly_known.py): its rank is shown, and this context
            # claims no dim (like one that could not evaluate the line).
            frame.entry.facts[("<unknown>", frame.path, frame.unit.key, nid)] = [True]
            value = partly_known.shown(value) if isinstance(value, PartlyKnown) else \
                ListVal([partly_known.shown(x) if isinstance(x, PartlyKnown) else x for x in value.items], value.kind)
        if isinstance(value, pybuiltins.IteratorVal):
            return  # an iterator (a generator's): no tensor, nor a tuple of them
        if isinstance(value, TensorValue) or (isinstance(value, ListVal) and value.items and
                                               any(isinstance(x, TensorValue) for x in value.items)):
            # A list is shown as it was here, not as later appends left it.
            _add_fact(frame.entry.facts, (frame.path, frame.unit.key, nid), _as_it_is(value))
            if target:
                frame.entry.facts.setdefault(("<targets>", frame.path, frame.unit.key), []).append(nid)
        elif value is UNKNOWN or (isinstance(value, ListVal) and any(x is UNKNOWN for x in value.items)):
            # (a tuple of Unknowns: `return values, index` after an op it could not evaluate)
            frame.may_raise = frame.may_raise or value is UNKNOWN
            # This context reached the line and could not evaluate it: beside a context
            # that could, the hover claims no dim (ide._unit_facts).
            # ("whole": not even its kind is known; beside contexts where it is a tuple, the
            # line may hold a tensor here: `out = self.fn(x)` over attention and feed-forward)
            frame.entry.facts[("<unknown>", frame.path, frame.unit.key, nid)] = \
                (["rank"] if frame.entry.rank_blind else [True]) + (["whole"] if value is UNKNOWN else [])

    def note_origin(self, frame, nid, text):
        """Where a value came from, for hover: "conv2d(Tensor[8, 1, 28, 28], ...)"."""
        key = ("<origin>", frame.path, frame.unit.key, nid)
        notes = frame.entry.facts.setdefault(key, [])
        if text not in notes and len(notes) < 3:
            notes.append(text)

    def report(self, site, severity, code, message, related=(), repair=None, static=False):
        if site is None:
            return
        frame, node = site
        frame.may_raise = True
        if (frame.quiet or self.silent or frame.blind) and not static:
            # inside a branch that may never run (statements._branch), or one of a few
            # modules, or one way of a value known in part; an op wrong whatever the values
            # (`static`: an einops pattern naming an axis one side lacks) is wrong on any way
            return
        # (a call with `*args` / `**kwargs` is not compiled as a method call: Python names its
        # first line then, `(...).reshape(*shape)`)
        method = (node.func.nid, len(node.func.name)) if isinstance(node, ir.Call) and isinstance(node.func, ir.Attr) \
            and not any(getattr(a, "star", 0) for a in node.args) else None
        rec = DiagRecord((frame.path, frame.unit.key), node.nid, severity, code, message, related, repair, static,
                         method)
        frame.entry.diags[rec.key()] = rec

    def note_unknown_op(self, name):
        # Kept in the entry, so a memoized run still reports the calls it made.
        counts = self.stack[-1].entry.unknown_ops if self.stack else self.unknown_ops
        counts[name] = counts.get(name, 0) + 1


def _tensor_or_number(engine, a, b):
    """The join of a tensor and a plain number (or of such joins), else None."""
    from .dispatch import _is_number

    def parts(v):
        if isinstance(v, TensorOrNumber):
            return v.tensor, v.number
        if isinstance(v, TensorValue):
            return v, None
        if _is_number(v):
            return None, v
        return None

    pa, pb = parts(a), parts(b)
    if pa is None or pb is None:
        return None
    if not isinstance(a, TensorOrNumber) and not isinstance(b, TensorOrNumber) and (pa[0] is None) == (pb[0] is None):
        return None  # two tensors or two numbers: not this join
    tensors = [t for t in (pa[0], pb[0]) if t is not None]
    numbers = [n for n in (pa[1], pb[1]) if n is not None]
    tensor = tensors[0] if len(tensors) == 1 else engine.join(tensors[0], tensors[1])
    number = numbers[0] if len(numbers) == 1 else engine.join(numbers[0], numbers[1])
    if not isinstance(tensor, TensorValue) or number is UNKNOWN:
        return UNKNOWN
    return TensorOrNumber(tensor, number)


def _ways(v) -> tuple:
    if isinstance(v, TensorOrNumber):
        return _ways(v.tensor) + (v.number,)
    if isinstance(v, TensorOptions):
        return v.options
    return (v,)


def _as_it_is(value, depth: int = 3):
    """A copy of a list (and of the lists in it) as it is now; other values as they are."""
    if isinstance(value, ListVal) and depth and not getattr(value, "unknown", False):
        return ListVal([_as_it_is(x, depth - 1) for x in value.items], value.kind)
    return value


def _sequence(items, kind):
    """A tuple/list/set display; None items (an unpacked iterable of unknown length) make a
    sequence of unknown length, never a shorter one."""
    if items is None:
        v = ListVal([], kind)
        v.unknown = True
        return v
    return ListVal(items, kind)


_TOO_MANY = object()  # marks a comprehension result list that stopped early


_PLAIN_DICTS = (DictVal, values.DictOptions)


def _is_sequential(func) -> bool:
    return isinstance(func, Ref) and func.name == "torch.nn.Sequential"


generic_rest_key = generic.GENERIC_REST


def _unknown_keywords(v) -> bool:
    """A `**` spread of keywords nobody chose here: the **kwargs of a def nobody calls, or a
    `norm_kwargs=None` option of a class nobody builds (spread, it must be a dict then)."""
    return getattr(v, "generic_rest", False) or isinstance(v, generic.DefaultNone)


def _keywords_not_known(v) -> bool:
    """A dict whose keys are not known: Unknown, or one filled in a loop of unknown count
    (`routed_args[i] = ({**f_args, key: val}, ...)` over `range(depth)`). Spread into a call,
    each parameter it does not give may be passed, like a generic **kwargs."""
    return v is UNKNOWN or (isinstance(v, DictVal) and getattr(v, "unknown", False))


def _float_like(v) -> bool:
    """A Python float, or a float of unknown value."""
    return isinstance(v, float) or is_some_float(v)


_TRANSFORM_BASES = frozenset({"torch.distributions.Transform", "torch.distributions.transforms.Transform"})
_TRANSFORM_METHODS = {"inv": "_inverse", "__call__": "_call"}  # (torch.distributions.Transform's own)


def _transform_method(cls, name):
    """What torch.distributions.Transform's own `inv` or `__call__` runs for a subclass that
    does not define it: the subclass's `_inverse` or `_call`; None otherwise."""
    own = _TRANSFORM_METHODS.get(name)
    method = cls.lookup(own) if own is not None else None
    if isinstance(method, FunctionVal) and any(b.name in _TRANSFORM_BASES for b in cls.builtin_bases()):
        return method
    return None
