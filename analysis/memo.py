"""Memoized calls of user functions: entries, their validation (the incremental firewall),
liveness, and binding call arguments to parameters. Mixed into `infer.Engine`."""
from __future__ import annotations

import copy
import dataclasses

from . import ir
from . import shapes as S
from .shapes import UNKNOWN
from .values import SOME_INT, ClassVal, DictVal, FunctionVal, Instance, ListVal, Ref, alike, is_tensor, value_key
from .ops.spec import SomeTensors, TensorValue
from . import configs, generators, pybuiltins
from .annotations import tensor_from_annotation
from .generic import GENERIC_REST, axis_from_end, context_notes, empty_sequence, generic_hyperparameter
from .name_uses import name_uses, rounded_parameter, sequence_parameter, used_as_no_number
from .frames import MAX_DEPTH, CALL_STEPS, decided, note_call_edge, reachable, depth_exceeded, over_step_limit, Dep, Entry, Frame, _MISSING, _unknown_shape, _add_fact, _tensor_syms


_IMMUTABLE = (TensorValue, int, float, str, S.Expr, type(None))


def arguments_key(args, kwargs, known: tuple | None = None) -> tuple | None:
    """The structural key of a call's arguments (`known`, if the caller has it), as recorded
    with a dependency; None when no argument can be mutated (tensors, numbers, strings),
    which is the common case."""
    if all(isinstance(a, _IMMUTABLE) or a is UNKNOWN for a in args) and \
            all(isinstance(v, _IMMUTABLE) or v is UNKNOWN for v in kwargs.values()):
        return None
    if known is not None:
        return known
    return (tuple(value_key(a) for a in args), tuple((k, value_key(v)) for k, v in kwargs.items()))


# Calls of one def kept per calling entry (infer.replay_widened reruns them)
MAX_SEEN_CALLS = 4


class MemoMixin:
    # =====================================================================================
    # Memo
    # =====================================================================================
    def _valid(self, entry) -> bool:
        """Do the entry's dependencies still give the same results? Asking re-runs them
        through the memo; the entries that answered become the entry's children."""
        children: list = []
        self._collect.append(children)
        self._validating.append([len(self.stack), False])
        try:
            ok = self._deps_hold(entry)
        finally:
            self._collect.pop()
            _, became_impure = self._validating.pop()
        ok = ok and not became_impure
        if ok:
            entry.children = children
            entry.reach = None
        return ok

    def _unchanged(self, entry) -> bool:
        """Certainly still valid, without re-asking anything: it answered this very call in
        the previous run (or was found unchanged already in this one), and no unit it or its
        callees ran, and no module whose globals they read, changed since. This keeps an
        edit's validation proportional to what the edit touched."""
        if entry is None or entry.stale or self.memo.get(entry.key) is not entry:
            return False
        if entry.last_run != self.run_id - 1 and entry.id not in self.unchanged_ids:
            return False
        reach = self._reach(entry)
        if reach.isdisjoint(self.program.changed_units) and reach.isdisjoint(self.rerun_globals):
            self.unchanged_ids.add(entry.id)
            return True
        return False

    def _reach(self, entry) -> frozenset:
        reach = entry.reach
        if reach is None:
            entry.reach = frozenset()  # a cycle through children adds nothing
            found = set(entry.units)
            found.update(("<globals>", path) for path, _ in entry.global_reads)
            for child in entry.children:
                found |= self._reach(child)
            reach = entry.reach = frozenset(found)
        return reach

    def _deps_hold(self, entry) -> bool:
        for (path, unit_key), digest in entry.units.items():
            unit = self.program.unit(path, unit_key)
            if unit is None or unit.digest != digest:
                return False
        for (path, name), key in entry.global_reads.items():
            env = self.module_envs.get(path)
            if env is None:
                env = self.run_module(path, as_main=False)
            value = env[name] if name in env and self._visible(path, name) else UNKNOWN
            if value_key(value) != key:
                return False
        for dep in entry.deps:
            if dep.args_key is not None and arguments_key(dep.args, dict(dep.kwargs)) != dep.args_key:
                return False  # an argument was mutated after the call: it cannot be re-asked
            if self._unchanged(dep.child):
                self._mark_live(dep.child)
                continue
            saved, self.module_pos = self.module_pos, dict(dep.pos)  # as when the call was made
            try:
                if not dep.generic:
                    result = self.call_value(dep.fn, list(dep.args), dict(dep.kwargs), None)
                elif isinstance(dep.fn, FunctionVal):
                    result = self.call_user(dep.fn, list(dep.args), dict(dep.kwargs), None, generic=True)
                else:
                    result = self.construct(dep.fn, list(dep.args), dict(dep.kwargs), None, generic=True)
            finally:
                self.module_pos = saved
            if value_key(result) != dep.result_key:
                return False
        return True

    def _visible(self, path, name) -> bool:
        limit = self.module_pos.get(path)
        if limit is None:
            return True
        first = self.bind_pos.get(path, {}).get(name)
        return first is None or first < limit

    def _mark_live(self, entry):
        entry.last_run = self.run_id
        if self._collect:
            self._collect[-1].append(entry)
            if self.stack and self._collect[-1] is self.stack[-1].entry.children:
                note_call_edge(self.stack[-1], entry)

    def _store(self, entry):
        if self.memo.get(entry.key, entry) is not entry:
            self.program.memo_epoch += 1  # an entry replaced (reused_generic_run checks again)
        self.memo[entry.key] = entry
        self._mark_live(entry)

    def compute_live(self):
        """Entries reachable from this run's roots: exactly what the results are made of."""
        self.live, self.called_units, self.escaped_units = {}, set(), set()
        self.replayed_units = set()
        todo = list(self.roots)
        while todo:
            e = todo.pop()
            if e.id in self.live:
                continue
            self.live[e.id] = e
            e.last_run = self.run_id
            self.called_units.add(e.unit_key)
            self.called_units.update(k for _, k in e.units)
            self.escaped_units |= e.escaped
            self.replayed_units |= e.__dict__.get("replayed", ())
            todo.extend(e.children)

    # =====================================================================================
    # Generic runs of defs no call reached (infer.run_uncalled), reused across edits
    # =====================================================================================
    def reused_generic_run(self, path, key):
        """(the entries of its generic call or None,) from the previous analysis when every
        entry the def's generic run made (its probes, the generic instance, the call) is
        unchanged: they are marked live again, without binding, probing and validating."""
        run = self.program.generic_runs.get((path, key))
        if run is None or run.last_run != self.run_id - 1:
            return None
        made = run.probes + run.entries
        if any(e.stale for e in made):
            return None
        reach = run.reach  # as _unchanged, with one memo check per run
        if reach is None:
            reach = run.reach = frozenset().union(*(self._reach(e) for e in made))
        if not reach.isdisjoint(self.program.changed_units) or not reach.isdisjoint(self.rerun_globals):
            return None
        if run.epoch != self.program.memo_epoch:
            if any(self.memo.get(e.key) is not e for e in made):
                return None
            run.epoch = self.program.memo_epoch
        run.last_run = self.run_id
        for e in run.probes:
            e.last_run = self.run_id  # kept by _prune like the entries
            self.unchanged_ids.add(e.id)
        for e in run.entries:
            self.unchanged_ids.add(e.id)
            self._mark_live(e)
        notes = self.__dict__.setdefault("generic_notes", {})
        for kind, added in run.notes.items():
            notes.setdefault(kind, {}).update(added)
        self.generic_runs[(path, key)] = run
        return (run.own,)

    def generic_run_started(self, collected):
        self.probe_record = []
        notes = {kind: dict(d) for kind, d in self.__dict__.get("generic_notes", {}).items()}
        return len(collected), len(self.roots), notes

    def generic_run_done(self, started, path, key, collected, start):
        """Remember a def's generic run when all it made is memoized (an impure result,
        merged into the roots, is not remembered)."""
        before, roots, notes_before = started
        probes, self.probe_record = self.probe_record or [], None
        entries = collected[before:]
        if len(self.roots) != roots or any(self.memo.get(e.key) is not e for e in entries + probes):
            return
        added = {}  # the hover's notes this run left on the engine (generic.context_notes)
        for kind, d in self.__dict__.get("generic_notes", {}).items():
            old = notes_before.get(kind, {})
            new = {k: v for k, v in d.items() if old.get(k, _MISSING) is not v}
            if new:
                added[kind] = new
        self.generic_runs[(path, key)] = _GenericRun(entries, probes, None if start is None else collected[start:],
                                                     added, self.run_id, self.program.memo_epoch)

    def keep_generic_runs(self, path):
        self.probe_record = None
        runs = self.program.generic_runs
        for k in [k for k in runs if k[0] == path]:
            del runs[k]
        runs.update(self.generic_runs)

    # =====================================================================================
    # Calls of user functions
    # =====================================================================================
    def call_user(self, fn: FunctionVal, args: list, kwargs: dict, site=None, generic=False):
        unit = self.program.unit(fn.path, fn.unit_key)
        if unit is None:
            return UNKNOWN
        self.steps += CALL_STEPS  # a call costs more than an expression (frames.CALL_STEPS)
        if self.steps > self.step_limit:
            over_step_limit(self)
        if len(self.stack) > MAX_DEPTH:
            return depth_exceeded(self)
        bound, hard = self._bind(fn, unit, args, kwargs, generic)
        if bound is None:
            return UNKNOWN
        rank_blind = False
        made_up: set = set()  # symbols this call invented for arguments it was not given
        if not (generic or self.probing):
            # Arguments of unknown shape are analysed as symbols (generic.py), so this
            # context says what holds for any value instead of nothing.
            unknown = [p.name for p in unit.params if bound.get(p.name) is UNKNOWN]
            if unknown and all(p.kind in ("pos", "kwonly") for p in unit.params):
                if fn.unit_key.endswith(".__init__"):
                    # (by its default's kind: a flag not known runs both ways, never as a
                    # size, which is always true: `Inner(bidirectional=not causal)`; one the
                    # body uses as no number is, `len(in_degrees)`, stays Unknown)
                    bound.update({n: generic_hyperparameter(n, _flag_default(fn, n)) for n in unknown
                                  if not used_as_no_number(unit, n)})
                else:
                    probed = self.probe_inputs(fn, [], dict(bound), unknown, invented=made_up)
                    bound.update(probed)
                    # An argument of unknown rank: a line this call cannot evaluate says
                    # nothing of its rank either (ide: its mark hides the rank too).
                    rank_blind = any(isinstance(v, TensorValue) and v.shape is None for v in probed.values())
        try:
            args_key = tuple((k, value_key(v)) for k, v in bound.items())
            call_key = arguments_key(args, kwargs)  # before the call, for the caller's deps
        except RecursionError:
            return UNKNOWN
        if not (generic or self.probing) and fn.unit_key.endswith(".forward"):
            # The calls made of each forward (a few per def), kept on the calling entry so that
            # a reused entry still holds them, for infer.replay_widened
            if self.stack:  # (the module's own top level has a frame too)
                calls = self.stack[-1].entry.seen_calls.setdefault(fn.unit_key, {})
                if len(calls) < MAX_SEEN_CALLS:
                    calls.setdefault(args_key, (fn, bound))
        # A probing run (generic.py) decides nothing: its results are its own.
        key = (fn.qualname, fn.path, unit.digest, args_key,
               "probe" if self.probing else "silent" if self.silent and not generic else generic)
        # Recursion: a call already on the stack with the same key is Unknown.
        for f in self.stack:
            if f.entry.key == key:
                return UNKNOWN
        entry = self.memo.get(key)
        caller = self._caller()
        if entry is not None and not entry.stale and fn.closure is None and self._valid(entry):
            self._mark_live(entry)
            result = entry.result
            # (first made by infer._rank_open_inputs with these very arguments)
            entry.rank_blind = entry.rank_blind or rank_blind
        else:
            self.log.append(f"infer:{fn.qualname}")
            entry = Entry(key, fn.unit_key)
            entry.rank_blind = rank_blind
            entry.units[(fn.path, fn.unit_key)] = unit.digest
            frame = Frame(self, unit, fn.path, entry, fn.closure)
            genv = self.module_envs.get(fn.path)
            if genv is None:  # re-asked by a validation before its module ran in this run
                genv = self.run_module(fn.path, as_main=False)
            frame.globals_env = genv
            frame.hard_syms = hard
            frame.bound_args = bound
            env = dict(bound)
            self.stack.append(frame)
            self._collect.append(entry.children)
            if generators.is_generator(fn.path, unit):
                frame.yields = []
                frame.pure = False  # each call makes its own iterator: never one memoized result
            try:
                self._annotate_params(frame, fn, env)
                self.exec_block(frame, unit.body, env)
            finally:
                self.stack.pop()
                self._collect.pop()
            if frame.yields is not None:
                result = generators.result(self, frame)
            else:
                result = self._join_all(frame.returns) if frame.returns else None
            entry.result = result
            entry.may_raise = frame.may_raise
            entry.preconditions = _preconditions(frame.assumptions, bound)
            if frame.pure and fn.closure is None:
                self._store(entry)
            else:
                self._merge_into_caller(entry)
        if entry.may_raise and self.stack:
            self.stack[-1].may_raise = True
        self._last_call_entry = entry  # summary: the entry that ran a module's forward (calltrace)
        if caller is not None and not self.probing and not self._deciding_top():
            # What the callee needed of its arguments holds after it returns (`H >=
            # patch_size` from a conv inside it): the caller decides with it too.
            caller.assumptions.extend(a for a in getattr(entry, "preconditions", ())
                                      if not (made_up and a[0].symbols() & made_up))
        self.surface_library_errors(fn.path, entry, site)
        if caller is not None and entry.key in self.memo and not self._probe_top() and not self._deciding_top():
            caller.entry.deps.append(Dep(fn, tuple(args), tuple(kwargs.items()), call_key, value_key(result),
                                         tuple(self.module_pos.items()), entry, generic))
        if made_up:
            result = forget_symbols(result, made_up)
        return result

    def surface_library_errors(self, callee_path, entry, site):
        """A call from the user's code into a library (analysis.libraries) that fails
        inside it: the error is the user's, at the call site, with the library line as
        related information (library files get no diagnostics of their own)."""
        if site is None or not self.program.is_library(callee_path) or self.program.is_library(site[0].path):
            return
        for rec in _library_errors(self.program, entry):
            self.report(site, rec.severity, rec.code, rec.message,
                        ((rec.unit, rec.nid, "raised inside the library here: {text}"),))

    def _probe_top(self) -> bool:
        """The first call of a probing run: it answers to nobody (its caller asked for
        probes, not for its result), so it is no dependency of the caller."""
        return bool(self.probing) and len(self.stack) == self.probe_base[-1]

    def _deciding_top(self) -> bool:
        """The call of a run that decides a call's inputs (infer._rank_open_inputs): like a
        probing run's, it answers to nobody (no dependency, assumption or fact of the
        frame that asked: a later validation would re-ask it and keep its entry live)."""
        return bool(self.deciding_base) and len(self.stack) == self.deciding_base[-1]

    def _caller(self):
        """The frame a call is made from, or None when the call is re-asked by a validation
        (then it belongs to the entry being validated, not to the frame on top)."""
        if not self.stack:
            return None
        if self._validating and self._validating[-1][0] == len(self.stack):
            return None
        return self.stack[-1]

    def _merge_into_caller(self, entry):
        """An impure call re-runs whenever its caller does: its results live in the caller."""
        if self._validating and self._validating[-1][0] == len(self.stack):
            # Re-asked by a validation, outside its caller's frame: the caller must re-run.
            self._validating[-1][1] = True
            return
        caller = self._caller()
        if caller is None or (self.probing and self.probe_base and len(self.stack) <= self.probe_base[-1]) \
                or self._deciding_top():
            # (a probing run's own call, made from the frame that asked for the probe: its
            # uses and facts are the probe's, not that frame's; infer.probe_inputs reads them)
            self.roots.append(entry)
            return
        for k, vals in entry.facts.items():
            if k[0] in ("<targets>", "<origin>"):
                caller.entry.facts.setdefault(k, []).extend(vals)
                continue
            for v in vals:
                _add_fact(caller.entry.facts, k, v)
        if caller.blind:
            # (made on an undecided way of the caller: what failed in it may never run)
            caller.entry.diags.update((k, r) for k, r in entry.diags.items() if r.static)
            caller.entry.__dict__.setdefault("blind_edges", set()).update(c.id for c in entry.children)
        else:
            caller.entry.diags.update(entry.diags)
            for edges in ("blind_edges", "decided_edges"):
                if edges in entry.__dict__:
                    caller.entry.__dict__.setdefault(edges, set()).update(entry.__dict__[edges])
        caller.entry.units.update(entry.units)
        _carry_module_calls(self, entry, caller.entry)
        for name, n in entry.unknown_ops.items():
            caller.entry.unknown_ops[name] = caller.entry.unknown_ops.get(name, 0) + n
        caller.entry.deps.extend(entry.deps)
        caller.entry.children.extend(entry.children)
        caller.entry.global_reads.update(entry.global_reads)
        caller.entry.escaped |= entry.escaped
        caller.entry.replayed |= entry.__dict__.get("replayed", set())
        for unit_key, calls in entry.__dict__.get("seen_calls", {}).items():
            mine = caller.entry.seen_calls.setdefault(unit_key, {})
            for k, call in calls.items():
                if len(mine) < MAX_SEEN_CALLS:
                    mine.setdefault(k, call)
        for pid, uses in entry.__dict__.get("probe_uses", {}).items():
            caller.entry.__dict__.setdefault("probe_uses", {}).setdefault(pid, []).extend(uses)
        if "grad_flags" in entry.__dict__:  # requires_grad writes (calltrace.requires_grad)
            caller.entry.__dict__.setdefault("grad_flags", []).extend(entry.grad_flags)
        if "parametrized" in entry.__dict__:  # weight_norm & co. (calltrace.parametrized)
            caller.entry.__dict__.setdefault("parametrized", []).extend(entry.parametrized)

    def _bind(self, fn, unit, args, kwargs, generic):
        """Bind call arguments to parameters (Python's rules); None if they do not fit."""
        env: dict = {}
        hard: set = set()
        params = unit.params
        args = list(args)
        kwargs = dict(kwargs)
        given = set(kwargs)  # (a generic constructor keeps what it is given: flag_worlds)
        rest = kwargs.pop(GENERIC_REST, False)  # **kwargs of a def nobody calls (generic.py)
        module_method = bool(args) and isinstance(args[0], Instance) and args[0].cls.is_module() and \
            not fn.unit_key.endswith(".__init__")

        def named(p):
            """A parameter's value from a keyword, its default, or Unknown (generic runs)."""
            if p.name in kwargs:
                return kwargs.pop(p.name)
            if p.name in fn.defaults:
                if rest:  # perhaps passed through the **kwargs: a symbol, the default a variant
                    return generic_hyperparameter(p.name, fn.defaults[p.name], context_notes(self, "defaults"))
                return fn.defaults[p.name]
            return UNKNOWN if (generic or rest) else _MISSING

        for p in params:
            if p.kind == "pos":
                env[p.name] = args.pop(0) if args else named(p)
            elif p.kind == "kwonly":
                env[p.name] = named(p)
            if env.get(p.name) is _MISSING:
                return None, hard
            if rest and p.kind in ("pos", "kwonly"):
                # A factory's numbers (`ResNet(BasicBlock, [2, 2, 2, 2], **kwargs)`) are one
                # way to build the class, not the only one: sizes are symbols named after
                # the parameter (`layers[0]`), classes and flags stay.
                env[p.name] = _factory_sizes(p.name, env[p.name])
        for p in params:
            if p.kind == "vararg":
                env[p.name] = ListVal(args, "tuple")
                args = []
            elif p.kind == "kwarg":
                env[p.name] = DictVal(kwargs)
                kwargs = {}
                if rest:
                    env[p.name].unknown = env[p.name].generic_rest = True
            if generic and p.kind in ("vararg", "kwarg") and not env[p.name].items and \
                    not (p.kind == "kwarg" and not rest and module_method):
                # No caller: what it would pass is not known. Except the **kwargs of a
                # module's forward (or other method) nobody calls: a training loop calls
                # `model(x)`, so the extra keywords are none (`self.net(x, **kwargs)` then
                # routes a known dict). A constructor's or a factory's are hyperparameters.
                env[p.name].unknown = True
                env[p.name].generic_rest = p.kind == "kwarg"
        if args and not generic:
            return None, hard
        if kwargs and not generic and UNKNOWN not in kwargs:
            return None, hard
        if generic:
            if fn.unit_key.endswith(".__init__"):
                # A class built with no concrete call: its hyperparameters are symbols
                # named after them, also when they have a default (the real model may be
                # built with another value). See generic.py.
                for p in params[1:]:
                    if p.kind in ("pos", "kwonly") and p.name not in given:
                        part = self._annotated_part(fn, p) if env.get(p.name) is UNKNOWN else None
                        if part is None and env.get(p.name) is UNKNOWN and sequence_parameter(unit, p.name):
                            # `len(categories)`, `for h in hidden_dims`: sizes of any number
                            part = alike(SOME_INT, "tuple")
                        env[p.name] = part if part is not None else \
                            generic_hyperparameter(p.name, env.get(p.name), context_notes(self, "defaults"),
                                                   rounded=rounded_parameter(unit, p.name))
            else:
                # `def random_unitquat(size=tuple())` nobody calls: the callers pass sizes
                # of their own, so the empty default is one of any number of dims; so is an
                # axis counted from the end (`dim=-1`) one of several.
                for p in params:
                    if p.kind in ("pos", "kwonly") and p.name not in given and p.name in fn.defaults \
                            and env.get(p.name) is fn.defaults[p.name] and (empty_sequence(env[p.name])
                                                                            or axis_from_end(p.name, env[p.name])):
                        env[p.name] = generic_hyperparameter(p.name, env[p.name])
            # Parameters with tensor annotations get symbolic shapes.
            for p in params:
                if p.annotation is not None and env.get(p.name) is UNKNOWN:
                    t = tensor_from_annotation(p.annotation, self._annotation_resolver(fn))
                    if t is not None:
                        env[p.name] = t
                        hard |= _tensor_syms(t)
        return env, hard

    def _annotated_part(self, fn, param):
        """A constructor parameter given no default whose class the code states: annotated
        with a module class of the program (`self_attn: MultiHeadAttention`, parts handed in
        by whoever builds the model) or asserted (`assert isinstance(net, SirenNet)`): in a
        class nobody builds, a generic instance of that class, so the calls of it run instead
        of giving Unknown; a dataclass, annotated or matched by the fields read
        (`config.n_embd`), a generic config (configs.py). None otherwise."""
        unit = self.program.unit(fn.path, fn.unit_key)
        node = param.annotation
        if node is None and unit is not None:
            use = name_uses(unit).get(param.name)
            node = use.asserted_class if use is not None else None  # `assert isinstance(net, SirenNet)`
        if node is None:
            # `GPT(config)` reading only fields of the file's one GPTConfig dataclass
            found = configs.matching_dataclass(unit, param.name, self.module_envs.get(fn.path, {})) \
                if unit is not None else None
            return configs.generic_config(self, found) if found is not None else None
        cls = self._static_value(node, fn.path)
        if configs.is_dataclass(cls):
            return configs.generic_config(self, cls)  # `config: MambaConfig`
        if not isinstance(cls, ClassVal) or not cls.is_module():
            return None
        building = cls.qualname + ".<new>"
        if any(f.entry.unit_key == building for f in self.stack):
            return None  # (a part of its own kind: no end to building it)
        return self._generic_instance(cls)

    def _annotate_params(self, frame, fn, env):
        """Concrete call values are checked against (and name the symbols of) annotations."""
        for p in frame.unit.params:
            if p.annotation is None:
                continue
            t = tensor_from_annotation(p.annotation, self._annotation_resolver(fn))
            v = env.get(p.name)
            if t is None or t.shape is None:
                continue
            frame.hard_syms |= _tensor_syms(t)
            if is_tensor(v) and v.shape is not None and len(v.shape) == len(t.shape):
                for a, b in zip(v.shape, t.shape):
                    c = S.eq(a, b)
                    if isinstance(c, S.Cond):
                        frame.assumptions.append((c, ((frame.path, frame.unit.key), p.annotation.nid)))

    def _annotation_resolver(self, fn):
        def resolve(node):
            v = self._static_value(node, fn.path)
            return v.name if isinstance(v, Ref) else None

        return resolve

    def _static_value(self, node, path):
        """Resolve a dotted name in an annotation against the module environment."""
        env = self.module_envs.get(path, {})
        if isinstance(node, ir.Name):
            v = env.get(node.id)
            if v is None:
                v = pybuiltins.builtin(node.id)
            return v
        if isinstance(node, ir.Attr):
            base = self._static_value(node.obj, path)
            if isinstance(base, Ref):
                return Ref(base.name + "." + node.name)
        return None


class _GenericRun:
    """What one def's generic run made: `entries` (added to the roots: the generic
    instance, the call), `probes` (what its inputs were decided from), `own` (the call's
    entries, None for an `__init__`), `notes` (generic.context_notes it set)."""

    __slots__ = ("entries", "probes", "own", "notes", "last_run", "epoch", "units", "reach")

    def __init__(self, entries, probes, own, notes, last_run, epoch):
        self.entries, self.probes, self.own, self.notes = entries, probes, own, notes
        self.last_run = last_run  # the run that made or reused it
        self.epoch = epoch  # host.memo_epoch when its entries were last seen in the memo
        self.units = None  # the units of its file its call reaches (infer._reached_by_others)
        self.reach = None  # what its entries read (memo._reach of each, joined)


def _library_errors(program, entry) -> list:
    """The errors recorded in library code under an entry (cached on the entry)."""
    cached = entry.__dict__.get("_library_errors")
    if cached is not None:
        return cached
    out = [r for e in decided([entry]) for r in e.diags.values()
           if r.severity == "error" and program.is_library(r.unit[0])]
    entry._library_errors = out
    return out


def _preconditions(assumptions, bound) -> tuple:
    """The assumptions of a finished call that are about its arguments' symbols only (a
    symbol the callee made up for itself may share a name with one of the caller's)."""
    if not assumptions:
        return ()
    syms: set = set()
    for v in bound.values():
        _collect_symbols(v, syms, 0)
    return tuple(a for a in assumptions if isinstance(a[0], S.Cond) and a[0].symbols() <= syms)


def forget_symbols(v, names: set, depth: int = 0):
    """`v` with every dim that mentions one of `names` made unknown. A callee analysed with
    made-up symbols for arguments its caller could not tell says what holds for any value of
    them, but in the caller those names would mean the caller's own dims of the same name
    (its `C` is not the callee's `C`): past the call they are unknown."""
    if depth > 4:
        return v
    if isinstance(v, S.Expr):
        return SOME_INT if v.symbols() & names else v
    if isinstance(v, TensorValue):
        def dims(ds):
            return None if ds is None else tuple(
                UNKNOWN if isinstance(d, S.Expr) and d.symbols() & names else d for d in ds)
        shape, tail = dims(v.shape), dims(v.tail)
        if shape == v.shape and tail == v.tail:
            return v
        return dataclasses.replace(v, shape=shape, tail=tail, values=None, strides=None)
    if isinstance(v, tuple):
        return tuple(forget_symbols(x, names, depth + 1) for x in v)
    if isinstance(v, list):
        return [forget_symbols(x, names, depth + 1) for x in v]
    if isinstance(v, ListVal):
        items = [forget_symbols(x, names, depth + 1) for x in v.items]
        element = getattr(v, "element", None)
        new_element = None if element is None else forget_symbols(element, names, depth + 1)
        if all(a is b for a, b in zip(items, v.items)) and new_element is element:
            return v
        out = copy.copy(v)
        out.items = items
        if element is not None:
            out.element = new_element
        return out
    if isinstance(v, SomeTensors):
        return SomeTensors(tuple(forget_symbols(x, names, depth + 1) for x in v.prefix),
                           forget_symbols(v.element, names, depth + 1))
    return v


def _collect_symbols(v, out: set, depth: int) -> None:
    if depth > 4:
        return
    if isinstance(v, S.Expr):
        out |= v.symbols()
    elif isinstance(v, TensorValue):
        for d in v.shape or ():
            if isinstance(d, S.Expr):
                out |= d.symbols()
    elif isinstance(v, (list, tuple)):
        for x in v[:64]:
            _collect_symbols(x, out, depth + 1)
    elif isinstance(v, ListVal):
        for x in v.items[:64]:
            _collect_symbols(x, out, depth + 1)
    elif isinstance(getattr(v, "attrs", None), dict):  # an instance or a modelled layer
        for x in list(v.attrs.values())[:64]:
            _collect_symbols(x, out, depth + 1)
    elif isinstance(getattr(v, "items", None), list):  # a container of modules
        for x in v.items[:64]:
            _collect_symbols(x, out, depth + 1)


def _factory_sizes(name, v):
    """Ints >= 1 in a value a factory passes, as symbols named after where they sit."""
    if isinstance(v, int) and not isinstance(v, (bool, S.Expr)) and v >= 1:
        return S.sym(name)
    if isinstance(v, ListVal) and not getattr(v, "unknown", False) and len(v.items) <= 16 \
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v.items):
        out = ListVal([_factory_sizes(f"{name}[{i}]", x) for i, x in enumerate(v.items)], v.kind)
        return out
    return v


def _carry_module_calls(engine, entry, into) -> None:
    """The module calls a merged call made (a closure or an impure helper calling layers) are
    its caller's own, placed among the caller's calls by the deps they come after (the
    merged entry's deps are appended to the caller's). Not when the caller is inside a
    recorded module call: then the merged entry is that call's forward (calltrace.traced
    links it as the call's body, which keeps its calls)."""
    calls = entry.__dict__.get("module_calls")
    if not calls:
        return
    opened = engine.__dict__.get("_open_module_calls")
    if opened and opened[-1][0] is into:
        return
    offset = len(into.deps)
    for rec in calls:
        rec.dep_index += offset
    into.__dict__.setdefault("module_calls", []).extend(calls)


def _flag_default(fn, name):
    """The default a constructor parameter given an unknown value is analysed with: its own
    when it is a bool (the flag then runs both ways, generic.DefaultBool), else UNKNOWN (a
    symbol named after it)."""
    default = fn.defaults.get(name, UNKNOWN)
    return default if isinstance(default, bool) else UNKNOWN
