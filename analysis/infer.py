"""Abstract interpretation of the IR: Python semantics over abstract values.

The module's top level runs first (with `__name__ == "__main__"`, so drivers run); calls of
user functions run their units with the argument values of each call site (so shapes flow
from call sites into callees). Every call of a user function is memoized as an `Entry`
keyed by (function, code digest, argument values); an entry is reused in a later run when
its dependencies (the calls it made and the globals it read) still give the same results.
That is the incremental firewall: a def's summary (its result for given arguments) decides
whether callers are recomputed.

Anything the interpreter does not model evaluates to UNKNOWN, which propagates silently.
"""
from __future__ import annotations

import itertools

from . import ir
from . import shapes as S
from .ops import spec as O
from .ops.spec import Dtype, TensorValue
from .shapes import UNKNOWN
from .values import (BoundMethod, BoundRef, ClassVal, Container, DictVal, FunctionVal, Instance,
                     ListVal, ModuleNS, NNModule, Obj, PartialVal, Ref, SliceVal, is_tensor,
                     set_dtype, set_training, value_key)
from . import pybuiltins, values
from .annotations import shape_from_comment, tensor_from_annotation

MAX_DEPTH = 48
MAX_UNROLL = 512
MAX_STEPS = 3_000_000
MAX_VARIANTS = 128


class Budget(Exception):
    """The run exceeded its work budget: the rest is Unknown."""


class DiagRecord:
    __slots__ = ("unit", "nid", "severity", "code", "message", "related", "repair")

    def __init__(self, unit, nid, severity, code, message, related=(), repair=None):
        self.unit, self.nid = unit, nid
        self.severity, self.code, self.message = severity, code, message
        self.related = related  # tuple of (unit, nid, text)
        self.repair = repair  # (unit, nid, new_text, title) or None

    def key(self):
        return (self.unit, self.nid, self.code, self.message)


class Entry:
    """One memoized call of a unit (or a run of a module's top level)."""

    _ids = itertools.count()

    def __init__(self, key, unit_key):
        self.id = next(Entry._ids)
        self.key = key
        self.unit_key = unit_key
        self.result = None
        self.facts: dict = {}  # (unit, nid) -> list of values
        self.diags: dict = {}  # DiagRecord.key() -> DiagRecord
        self.deps: list = []  # (callable, args, kwargs, result key)
        self.global_reads: dict = {}  # (path, name) -> value key
        self.units: dict = {}  # (path, unit key) -> digest of every unit run for this entry
        self.unknown_units: set = set()  # units run here with an argument of unknown shape
        self.unknown_ops: dict = {}  # unmodelled API name -> calls made by this run
        self.children: list = []  # entries whose results this one used (for liveness)
        self.stale = False
        self.last_run = 0
        self.bind_pos: dict = {}  # for module entries: name -> first binding statement


class Frame:
    def __init__(self, engine, unit, path, entry, closure=None):
        self.engine = engine
        self.unit = unit
        self.path = path
        self.entry = entry
        self.closure = closure  # list of enclosing env dicts (innermost first)
        self.returns: list = []
        self.loops: list = []  # stack of (break_envs, continue_envs)
        self.assumptions: list = []  # (Cond, (unit, nid))
        self.hard_syms: set = set()
        self.pure = True
        self.globals_env = None  # the module env, for module-level functions
        self.is_module = unit.kind == "module"


def _copy_env(env):
    return None if env is None else dict(env)


class Engine:
    def __init__(self, program, memo: dict, run_id: int, log: list, timeout_ms: int = 500):
        self.program = program  # analysis.db.Program: units and module envs by path
        self.memo = memo
        self.run_id = run_id
        self.log = log
        self.timeout_ms = timeout_ms
        self.stack: list = []
        self.steps = 0
        self.live: dict = {}  # entry id -> Entry (computed by reachability from roots)
        self.real_ids: set = set()
        self.real_units: set = set()
        self.roots: list = []  # module runs and analyses of uncalled defs
        self._collect: list = []  # stack of children lists being filled
        self._validating: list = []  # [stack depth, a re-asked call became impure]
        self._loop_writes: list = []  # per loop of unknown trip count: objects it mutated
        # Python semantics of module globals read by functions: a name the module binds only
        # after the statement now running is not visible yet. module_pos: path -> index of the
        # top-level statement running (absent once the module finished); bind_pos: path ->
        # {name: index of the statement that first bound it}.
        self.module_pos: dict = {}
        self.bind_pos: dict = {}
        values.RUN[0] = run_id
        self.unknown_ops: dict = {}
        self.module_envs: dict = {}  # path -> env of the module's top level
        self.called_units: set = set()

    # =====================================================================================
    # Entry points
    # =====================================================================================
    def run_module(self, path: str, as_main: bool = True) -> dict:
        """Run a file's top level; returns its environment."""
        if path in self.module_envs:
            return self.module_envs[path]
        units = self.program.units(path)
        unit = units.get("<module>") if units else None
        if unit is None:
            self.module_envs[path] = {}
            return self.module_envs[path]
        key = ("<module>", path, unit.digest, as_main)
        entry = self.memo.get(key)
        if entry is not None and not entry.stale:
            # Functions validated below read globals from this environment: the old one,
            # which stays if every dependency still gives the same result.
            self.module_envs[path] = entry.result
            self.bind_pos[path] = entry.bind_pos
            if self._valid(entry):
                entry.last_run = self.run_id
                self.roots.append(entry)
                return entry.result
            del self.module_envs[path]
        self.log.append(f"infer:{_short(path)}::<module>")
        entry = Entry(key, "<module>")
        env = {"__name__": "__main__" if as_main else _module_name(path), "__file__": path}
        self.module_envs[path] = env
        frame = Frame(self, unit, path, entry)
        frame.globals_env = env
        self.stack.append(frame)
        self._collect.append(entry.children)
        bind_pos = self.bind_pos[path] = {}
        try:
            current = env
            for i, stmt in enumerate(unit.body):
                self.module_pos[path] = i
                current = self.exec_stmt(frame, stmt, current)
                if current is None:
                    break
                for name in current:
                    bind_pos.setdefault(name, i)
        except Budget:
            pass
        finally:
            self.module_pos.pop(path, None)
            self.stack.pop()
            self._collect.pop()
        entry.result = env
        entry.bind_pos = bind_pos
        self.memo[entry.key] = entry
        self.roots.append(entry)
        return env

    def run_uncalled(self, path: str):
        """Analyse defs no call reached, with parameters from annotations or Unknown."""
        self.compute_live()
        self.real_ids = set(self.live)  # entries reached by running the file itself
        self.real_units = set(self.called_units)
        units = self.program.units(path) or {}
        module_env = self.module_envs.get(path, {})
        collected: list = []
        self._collect.append(collected)
        classes = self._classes_by_method(module_env)
        for key, unit in units.items():
            if unit.kind != "function" or key in self.called_units or "<locals>" in key:
                continue
            fn = classes.get(key)
            self_value = None
            if fn is None:
                fn = module_env.get(key)
                if not isinstance(fn, FunctionVal):
                    continue
            else:
                fn, cls = fn
                self_value = self._generic_instance(cls)
                if fn is cls.lookup("__init__"):
                    continue  # building the generic instance already ran it
                if isinstance(fn, FunctionVal) and _is_static(fn):
                    self_value = None
            args = []
            kwargs = {}
            params = list(fn.params)
            if self_value is not None and params:
                args.append(self_value)
                params = params[1:]
            try:
                self.call_user(fn, args, kwargs, generic=True)
            except Budget:
                pass
        self._collect.pop()
        self.roots.extend(collected)
        self.compute_live()

    def _classes_by_method(self, env):
        out = {}
        for v in env.values():
            if isinstance(v, ClassVal):
                for name, m in v.attrs.items():
                    if isinstance(m, FunctionVal):
                        out[m.unit_key] = (m, v)
        return out

    def _generic_instance(self, cls: ClassVal):
        """An instance built by running __init__ with its defaults (Unknown otherwise);
        memoized like any constructor call."""
        return self.construct(cls, [], {}, None, generic=True)

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
        return ok

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
        for fn, args, kwargs, result_key, pos in entry.deps:
            saved, self.module_pos = self.module_pos, dict(pos)  # as when the call was made
            try:
                result = self.call_value(fn, list(args), dict(kwargs), None)
            finally:
                self.module_pos = saved
            if value_key(result) != result_key:
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

    def _store(self, entry):
        self.memo[entry.key] = entry
        self._mark_live(entry)

    def compute_live(self):
        """Entries reachable from this run's roots: exactly what the results are made of."""
        self.live, self.called_units = {}, set()
        todo = list(self.roots)
        while todo:
            e = todo.pop()
            if e.id in self.live:
                continue
            self.live[e.id] = e
            e.last_run = self.run_id
            self.called_units.add(e.unit_key)
            self.called_units.update(k for _, k in e.units)
            todo.extend(e.children)

    # =====================================================================================
    # Calls of user functions
    # =====================================================================================
    def call_user(self, fn: FunctionVal, args: list, kwargs: dict, site=None, generic=False):
        unit = self.program.unit(fn.path, fn.unit_key)
        if unit is None:
            return UNKNOWN
        if len(self.stack) > MAX_DEPTH:
            return UNKNOWN
        bound, hard = self._bind(fn, unit, args, kwargs, generic)
        if bound is None:
            return UNKNOWN
        try:
            args_key = tuple((k, value_key(v)) for k, v in bound.items())
        except RecursionError:
            return UNKNOWN
        key = (fn.qualname, fn.path, unit.digest, args_key, generic)
        # Recursion: a call already on the stack with the same key is Unknown.
        for f in self.stack:
            if f.entry.key == key:
                return UNKNOWN
        entry = self.memo.get(key)
        caller = self._caller()
        if entry is not None and not entry.stale and fn.closure is None and self._valid(entry):
            self._mark_live(entry)
            result = entry.result
        else:
            self.log.append(f"infer:{fn.qualname}")
            entry = Entry(key, fn.unit_key)
            entry.units[(fn.path, fn.unit_key)] = unit.digest
            if not generic and any(_unknown_shape(v) for v in bound.values()):
                entry.unknown_units.add((fn.path, fn.unit_key))
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
            try:
                self._annotate_params(frame, fn, env)
                self.exec_block(frame, unit.body, env)
            finally:
                self.stack.pop()
                self._collect.pop()
            result = self._join_all(frame.returns) if frame.returns else None
            entry.result = result
            if frame.pure and fn.closure is None:
                self._store(entry)
            else:
                self._merge_into_caller(entry)
        if caller is not None and entry.key in self.memo:
            caller.entry.deps.append((fn, tuple(args), tuple(kwargs.items()), value_key(result),
                                      tuple(self.module_pos.items())))
        return result

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
        if caller is None:
            self.roots.append(entry)
            return
        for k, vals in entry.facts.items():
            if k[0] in ("<targets>", "<origin>"):
                caller.entry.facts.setdefault(k, []).extend(vals)
                continue
            for v in vals:
                _add_fact(caller.entry.facts, k, v)
        caller.entry.diags.update(entry.diags)
        caller.entry.units.update(entry.units)
        caller.entry.unknown_units |= entry.unknown_units
        for name, n in entry.unknown_ops.items():
            caller.entry.unknown_ops[name] = caller.entry.unknown_ops.get(name, 0) + n
        caller.entry.deps.extend(entry.deps)
        caller.entry.children.extend(entry.children)
        caller.entry.global_reads.update(entry.global_reads)

    def _bind(self, fn, unit, args, kwargs, generic):
        """Bind call arguments to parameters (Python's rules); None if they do not fit."""
        env: dict = {}
        hard: set = set()
        params = unit.params
        args = list(args)
        kwargs = dict(kwargs)
        def named(p):
            """A parameter's value from a keyword, its default, or Unknown (generic runs)."""
            if p.name in kwargs:
                return kwargs.pop(p.name)
            if p.name in fn.defaults:
                return fn.defaults[p.name]
            return UNKNOWN if generic else _MISSING

        for p in params:
            if p.kind == "pos":
                env[p.name] = args.pop(0) if args else named(p)
            elif p.kind == "kwonly":
                env[p.name] = named(p)
            if env.get(p.name) is _MISSING:
                return None, hard
        for p in params:
            if p.kind == "vararg":
                env[p.name] = ListVal(args, "tuple")
                args = []
            elif p.kind == "kwarg":
                env[p.name] = DictVal(kwargs)
                kwargs = {}
        if args and not generic:
            return None, hard
        if kwargs and not generic and UNKNOWN not in kwargs:
            return None, hard
        if generic:
            # Parameters with tensor annotations get symbolic shapes.
            for p in params:
                if p.annotation is not None and env.get(p.name) is UNKNOWN:
                    t = tensor_from_annotation(p.annotation, self._annotation_resolver(fn))
                    if t is not None:
                        env[p.name] = t
                        hard |= _tensor_syms(t)
        return env, hard

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

    # =====================================================================================
    # Statements
    # =====================================================================================
    def exec_block(self, frame, stmts, env):
        for stmt in stmts:
            if env is None:
                return None
            env = self.exec_stmt(frame, stmt, env)
        return env

    def exec_stmt(self, frame, s, env):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Budget()
        t = type(s)
        if t is ir.Assign:
            value = self.eval(frame, s.value, env)
            hint = True
            if s.shape_comment:
                value = self._declared_shape(frame, s, shape_from_comment(s.shape_comment), value)
                hint = False  # the line already states its shape
            for target in s.targets:
                self.assign(frame, target, value, env, s.value, hint=hint)
            return env
        if t is ir.ExprStmt:
            self.eval(frame, s.value, env)
            return env
        if t is ir.Return:
            value = self.eval(frame, s.value, env) if s.value is not None else None
            frame.returns.append(value)
            return None
        if t is ir.AugAssign:
            old = self.eval(frame, s.target, env)
            rhs = self.eval(frame, s.value, env)
            value = self.binop(frame, s.op, old, rhs, s, inplace=True)
            self.assign(frame, s.target, value, env, s.value)
            return env
        if t is ir.AnnAssign:
            if s.value is None:
                return env
            value = self.eval(frame, s.value, env)
            ann = tensor_from_annotation(s.annotation, lambda n: _ref_name(self._static_value(n, frame.path)))
            value = self._declared_shape(frame, s, ann, value)
            # Already annotated: no inlay hint or "annotate" action for this target.
            self.assign(frame, s.target, value, env, s.value, hint=False)
            return env
        if t is ir.If:
            return self.exec_if(frame, s, env)
        if t is ir.For:
            return self.exec_for(frame, s, env)
        if t is ir.While:
            return self.exec_while(frame, s, env)
        if t is ir.FuncDef:
            env[s.name] = self.make_function(frame, s, env)
            self.record(frame, s.nid, env[s.name], target=False)
            return env
        if t is ir.ClassDef:
            env[s.name] = self.make_class(frame, s, env)
            return env
        if t is ir.Import:
            for dotted, alias in s.names:
                if alias:
                    env[alias] = self.import_module(frame, dotted)
                else:
                    top = dotted.split(".")[0]
                    env[top] = self.import_module(frame, top)
            return env
        if t is ir.ImportFrom:
            self.exec_import_from(frame, s, env)
            return env
        if t is ir.Assert:
            return self.exec_assert(frame, s, env)
        if t is ir.With:
            for expr, target in s.items:
                v = self.eval(frame, expr, env)
                if target is not None:
                    self.assign(frame, target, UNKNOWN if not isinstance(v, (Obj, TensorValue)) else v, env, None)
            return self.exec_block(frame, s.body, env)
        if t is ir.Try:
            start = _copy_env(env)
            out = self.exec_block(frame, s.body, env)
            if out is not None and s.orelse:
                out = self.exec_block(frame, s.orelse, out)
            for _type, name, body in s.handlers:
                henv = _copy_env(start)
                if name:
                    henv[name] = UNKNOWN
                out = self.join_env(out, self.exec_block(frame, body, henv))
            if s.finalbody and out is not None:
                out = self.exec_block(frame, s.finalbody, out)
            return out
        if t is ir.Simple:
            if s.kind == "raise":
                return None
            if s.kind == "break" and frame.loops:
                frame.loops[-1][0].append(env)
                return None
            if s.kind == "continue" and frame.loops:
                frame.loops[-1][1].append(env)
                return None
            return env
        return env

    def _declared_shape(self, frame, s, declared, value):
        """A shape the code states (annotation or shape comment): its names become the
        user's symbols; it names the dims of a known value, or stands for an unknown one."""
        if declared is None:
            return value
        if declared.shape is not None and is_tensor(value) and value.shape is not None:
            frame.hard_syms |= _tensor_syms(declared)
            if len(declared.shape) == len(value.shape):
                for a, b in zip(value.shape, declared.shape):
                    c = S.eq(a, b)
                    if isinstance(c, S.Cond):
                        frame.assumptions.append((c, ((frame.path, frame.unit.key), s.nid)))
            return value
        if value is UNKNOWN or (is_tensor(value) and value.shape is None):
            frame.hard_syms |= _tensor_syms(declared)
            return declared
        return value

    def exec_if(self, frame, s, env):
        test = self.eval(frame, s.test, env)
        truth = self.truth(frame, test)
        if truth is True:
            return self.exec_block(frame, s.body, env)
        if truth is False:
            return self.exec_block(frame, s.orelse, env)
        a = self.exec_block(frame, s.body, _copy_env(env))
        b = self.exec_block(frame, s.orelse, _copy_env(env))
        return self.join_env(a, b)

    def exec_for(self, frame, s, env):
        iterable = self.eval(frame, s.iter, env)
        items = self.iterate(frame, iterable)
        if items is not None and len(items) <= MAX_UNROLL:
            for item in items:
                frame.loops.append(([], []))
                self.assign(frame, s.target, item, env, None)
                out = self.exec_block(frame, s.body, env)
                breaks, continues = frame.loops.pop()
                env = self.join_env(out, *continues)
                if breaks:
                    rest = env
                    return self.join_env(rest, *breaks) if not _definitely_broke(out, continues) else self.join_env(*breaks)
                if env is None:
                    return None
            return self.exec_block(frame, s.orelse, env) if s.orelse else env
        element = self.element_of(iterable)
        return self._fixpoint(frame, s, env, lambda e: self.assign(frame, s.target, element, e, None))

    def exec_while(self, frame, s, env):
        test = self.eval(frame, s.test, env)
        if self.truth(frame, test) is False:
            return env
        return self._fixpoint(frame, s, env, lambda e: None)

    def _fixpoint(self, frame, s, env, bind):
        """Run a loop body of unknown trip count until the environment is stable."""
        writes: list = []
        self._loop_writes.append(writes)
        try:
            return self._fixpoint_iterations(frame, s, env, bind)
        finally:
            self._loop_writes.pop()
            # A list appended to a number of times we do not know has unknown contents.
            for obj in writes:
                if isinstance(obj, (ListVal, DictVal, Container)):
                    obj.unknown = True
                    values.EPOCH[0] += 1

    def _fixpoint_iterations(self, frame, s, env, bind):
        entry_env = _copy_env(env)
        current = _copy_env(env)
        for _ in range(4):
            frame.loops.append(([], []))
            body_env = _copy_env(current)
            bind(body_env)
            out = self.exec_block(frame, s.body, body_env)
            breaks, continues = frame.loops.pop()
            merged = self.join_env(current, out, *continues, *breaks)
            if merged is None:
                return entry_env
            if _env_key(merged) == _env_key(current):
                return merged
            current = self._widen(entry_env, merged)
        return current

    def _widen(self, before, after):
        out = dict(after)
        for k, v in after.items():
            if k in before and value_key(before[k]) != value_key(v):
                out[k] = self.join(before[k], v)
        return out

    def exec_assert(self, frame, s, env):
        test = self.eval(frame, s.test, env)
        if test is False:
            return None
        if isinstance(test, S.Cond):
            frame.assumptions.append((test, ((frame.path, frame.unit.key), s.nid)))
            frame.hard_syms |= test.symbols()
        return env

    def exec_import_from(self, frame, s, env):
        if s.level == 0 and s.module.split(".")[0] in pybuiltins.EXTERNAL_ROOTS:
            for name, alias in s.names:
                if name == "*":
                    continue
                env[alias or name] = pybuiltins.import_name(s.module, name)
            return
        other = self.program.resolve_module(frame.path, s.module, s.level)
        if other is not None:
            mod_env = self.run_module(other, as_main=False)
            for name, alias in s.names:
                if name == "*":
                    env.update({k: v for k, v in mod_env.items() if not k.startswith("_")})
                else:
                    if name in mod_env:
                        env[alias or name] = mod_env[name]
                    else:
                        sub = self.program.resolve_module(frame.path, (s.module + "." if s.module else "") + name, s.level)
                        env[alias or name] = ModuleNS(sub, self.run_module(sub, as_main=False)) if sub else UNKNOWN
            return
        for name, alias in s.names:
            if name != "*":
                env[alias or name] = pybuiltins.import_name(s.module, name) if s.level == 0 else UNKNOWN

    def import_module(self, frame, dotted):
        root = dotted.split(".")[0]
        if root in pybuiltins.EXTERNAL_ROOTS:
            return Ref(dotted)
        other = self.program.resolve_module(frame.path, dotted, 0)
        if other is not None:
            return ModuleNS(other, self.run_module(other, as_main=False))
        return Ref(dotted)

    def make_function(self, frame, s: ir.FuncDef, env):
        defaults = {}
        for p in s.params:
            if p.default is not None:
                defaults[p.name] = self.eval(frame, p.default, env, record=False)
        closure = None
        if not frame.is_module:
            closure = [env] + (frame.closure or [])
        qual = s.unit_key
        fn = FunctionVal(qual, s.unit_key, s.params, defaults, closure, frame.path,
                         tuple(self._deco_name(frame, d, env) for d in s.decorators))
        return fn

    def _deco_name(self, frame, d, env):
        """A decorator by its last name: "staticmethod", "property", "dataclass", ..."""
        if isinstance(d, ir.Call):
            d = d.func
        v = self.eval(frame, d, env, record=False)
        if isinstance(v, Ref):
            return v.name.rsplit(".", 1)[-1]
        if isinstance(d, ir.Name):
            return d.id
        if isinstance(d, ir.Attr):
            return d.name
        return "?"

    def make_class(self, frame, s: ir.ClassDef, env):
        bases = [self.eval(frame, b.value, env, record=False) for b in s.bases if not b.name and not b.star]
        cls_env: dict = {}
        # The class body runs in its own namespace that can read the enclosing one.
        merged = dict(env)
        sub = dict(merged)
        self.exec_block(frame, s.body, sub)
        for k, v in sub.items():
            if k not in merged or merged[k] is not v:
                cls_env[k] = v
        import hashlib
        digest = hashlib.sha1(repr(s).encode()).hexdigest()
        decorators = [self._deco_name(frame, d, env) for d in s.decorators]
        cls = ClassVal(_class_qualname(s, cls_env), bases, cls_env, digest, frame.path)
        cls.decorators = decorators
        cls.fields = [t.target.id for t in s.body if isinstance(t, ir.AnnAssign) and isinstance(t.target, ir.Name)]
        return cls

    # =====================================================================================
    # Assignment
    # =====================================================================================
    def assign(self, frame, target, value, env, value_node, hint=True):
        t = type(target)
        if t is ir.Name:
            env[target.id] = value
            self.record(frame, target.nid, value, target=hint)
            if value_node is not None:
                origins = frame.entry.facts.get(("<origin>", frame.path, frame.unit.key, value_node.nid))
                for o in origins or ():
                    self.note_origin(frame, target.nid, o)
        elif t is ir.TupleE or t is ir.ListE:
            self.assign_unpack(frame, target, value, env, value_node)
        elif t is ir.Attr:
            obj = self.eval(frame, target.obj, env)
            self.record(frame, target.nid, value, target=True)
            self.set_attr(frame, obj, target.name, value)
        elif t is ir.Subscript:
            obj = self.eval(frame, target.obj, env)
            index = self.eval(frame, target.index, env)
            self.set_item(frame, obj, index, value)
        elif t is ir.Starred:
            self.assign(frame, target.value, value, env, value_node)

    def assign_unpack(self, frame, target, value, env, value_node):
        targets = target.elts
        star = [i for i, x in enumerate(targets) if isinstance(x, ir.Starred)]
        items = self.iterate(frame, value)
        if items is None and isinstance(value, ListVal) is False and star == []:
            # `B, C, H, W = x.shape` on a tensor of unknown rank: the rank is now known and
            # the dims get the names the code gives them.
            refined = self._refine_from_unpack(frame, target, value_node, env)
            if refined is not None:
                items = refined
        if items is None:
            for x in targets:
                self.assign(frame, x, UNKNOWN, env, None)
            return
        if star:
            i = star[0]
            n_after = len(targets) - i - 1
            if len(items) < len(targets) - 1:
                for x in targets:
                    self.assign(frame, x, UNKNOWN, env, None)
                return
            head, mid, tail = items[:i], items[i:len(items) - n_after], items[len(items) - n_after:]
            for x, v in zip(targets[:i], head):
                self.assign(frame, x, v, env, None)
            self.assign(frame, targets[i], ListVal(mid, "list"), env, None)
            for x, v in zip(targets[i + 1:], tail):
                self.assign(frame, x, v, env, None)
            return
        if len(items) != len(targets):
            tensors = is_tensor(value) or (isinstance(value, ListVal) and items
                                           and all(is_tensor(x) for x in items))
            if tensors and value_node is not None:
                # e.g. `q, k, v = x.split(C, dim=2)` with two chunks: Python raises here.
                many = len(items) > len(targets)
                message = (f"too many values to unpack (expected {len(targets)})" if many else
                           f"not enough values to unpack (expected {len(targets)}, got {len(items)})")
                self.report((frame, value_node), "error", "shape-mismatch", message)
            for x in targets:
                self.assign(frame, x, UNKNOWN, env, None)
            return
        for x, v in zip(targets, items):
            self.assign(frame, x, v, env, None)

    def _refine_from_unpack(self, frame, target, value_node, env):
        tensor_name = _shape_source(value_node)
        if tensor_name is None or not all(isinstance(x, ir.Name) for x in target.elts):
            return None
        t = env.get(tensor_name)
        if not (is_tensor(t) and t.shape is None):
            return None
        dims = tuple(S.sym(x.id) for x in target.elts)
        env[tensor_name] = TensorValue(dims, t.dtype)
        return list(dims)

    def set_attr(self, frame, obj, name, value):
        if isinstance(obj, Instance):
            self._mutated(obj)
            obj.attrs[name] = value
            inner = obj.attrs.get("__container__")
            if isinstance(inner, Container) and name != "__container__" and _is_module_value(value):
                # nn.Sequential & co. register submodules assigned as attributes, in order.
                keys = inner.keys if inner.keys is not None else []
                if name in keys:
                    inner.items[keys.index(name)] = value
                else:
                    inner.items.append(value)
                    inner.keys = keys + [name]
        elif isinstance(obj, NNModule):
            self._mutated(obj)
            obj.attrs[name] = value

    def set_item(self, frame, obj, index, value):
        if isinstance(obj, ListVal) and isinstance(index, int) and -len(obj.items) <= index < len(obj.items):
            self._mutated(obj)
            obj.items[index] = value
        elif isinstance(obj, DictVal) and _hashable(index):
            self._mutated(obj)
            obj.items[index] = value
        elif isinstance(obj, (ListVal, DictVal)):
            self._mutated(obj)
            if isinstance(obj, DictVal):
                obj.items.clear()
                obj.unknown = True
        # Tensor item assignment (x[..] = y) does not change x's shape.

    def _mutated(self, obj):
        """A write to a heap object: calls since its creator are impure (see module doc)."""
        values.EPOCH[0] += 1
        for writes in self._loop_writes:
            writes.append(obj)
        creator = getattr(obj, "origin", None)
        for f in reversed(self.stack):
            if f.entry is creator:
                return
            f.pure = False
        if creator is not None:
            creator.stale = True

    def new_obj(self, obj):
        obj.origin = self.stack[-1].entry if self.stack else None
        return obj

    # =====================================================================================
    # Expressions
    # =====================================================================================
    def eval(self, frame, node, env, record=True):
        self.steps += 1
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
                v = self.join(self.eval(frame, node.body, env, record), self.eval(frame, node.orelse, env, record))
        elif t is ir.TupleE:
            v = ListVal(self._elts(frame, node.elts, env), "tuple")
        elif t is ir.ListE:
            v = self.new_obj(ListVal(self._elts(frame, node.elts, env), "list"))
        elif t is ir.SetE:
            v = self.new_obj(ListVal(self._elts(frame, node.elts, env), "set"))
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
        else:
            return UNKNOWN
        if record:
            self.record(frame, node.nid, v)
        return v

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
            try:
                v = {"r": repr, "s": str, "a": ascii}.get(conv, lambda x: x)(v)
                out.append(format(v, spec))
            except (ValueError, TypeError):
                return UNKNOWN
        return "".join(out)

    def _elts(self, frame, elts, env):
        out = []
        for e in elts:
            if isinstance(e, ir.Starred):
                items = self.iterate(frame, self.eval(frame, e.value, env))
                if items is None:
                    return [UNKNOWN] * 0 + [UNKNOWN]
                out.extend(items)
            else:
                out.append(self.eval(frame, e, env))
        return out

    def _dict(self, frame, node, env):
        d = DictVal()
        for k, v in node.items:
            if k is None:
                other = self.eval(frame, v, env)
                if isinstance(other, DictVal):
                    d.items.update(other.items)
                continue
            key = self.eval(frame, k, env)
            val = self.eval(frame, v, env)
            if _hashable(key):
                d.items[key] = val
        return d

    def comprehension(self, frame, node, env):
        results = []
        sub = dict(env)
        ok = self._comp_loop(frame, node, node.generators, sub, results)
        if node.kind == "dict":
            d = DictVal()
            if ok:
                for item in results:
                    if isinstance(item, ListVal) and len(item.items) == 2 and _hashable(item.items[0]):
                        d.items[item.items[0]] = item.items[1]
            return self.new_obj(d)
        if not ok:
            return UNKNOWN
        return self.new_obj(ListVal(results, "list" if node.kind != "set" else "set"))

    def _comp_loop(self, frame, node, gens, env, results) -> bool:
        if not gens:
            results.append(self.eval(frame, node.elt, env))
            return True
        target, it, ifs = gens[0]
        items = self.iterate(frame, self.eval(frame, it, env))
        if items is None or len(items) > MAX_UNROLL:
            # Unknown length: evaluate once for the facts, result Unknown.
            self.assign(frame, target, self.element_of(UNKNOWN), env, None)
            self.eval(frame, node.elt, env)
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
        func = self.eval(frame, node.func, env, record=False)
        args, kwargs = [], {}
        for a in node.args:
            v = self.eval(frame, a.value, env)
            if a.star == 1:
                items = self.iterate(frame, v)
                if items is None:
                    return UNKNOWN
                args.extend(items)
            elif a.star == 2:
                if isinstance(v, DictVal) and all(isinstance(k, str) for k in v.items):
                    kwargs.update(v.items)
                else:
                    return UNKNOWN
            elif a.name:
                kwargs[a.name] = v
            else:
                args.append(v)
        return self.call_value(func, args, kwargs, (frame, node))

    def call_value(self, func, args, kwargs, site):
        if isinstance(func, FunctionVal):
            return self.call_user(func, args, kwargs, site)
        if isinstance(func, BoundMethod):
            return self.call_value(func.func, [func.self_value] + list(args), kwargs, site)
        if isinstance(func, PartialVal):
            return self.call_value(func.func, func.args + list(args), {**func.kwargs, **kwargs}, site)
        if isinstance(func, ClassVal):
            return self.construct(func, args, kwargs, site)
        if isinstance(func, Instance):
            return self.call_instance(func, args, kwargs, site)
        if isinstance(func, (NNModule, Container)):
            from .nnmodules import call_module
            return call_module(self, func, args, kwargs, site)
        if isinstance(func, (Ref, BoundRef)):
            from .dispatch import call_external
            return call_external(self, func, args, kwargs, site)
        return UNKNOWN

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
        return UNKNOWN

    def construct(self, cls: ClassVal, args, kwargs, site, generic=False):
        """`Net(...)`: a memoized call creating the instance and running __init__."""
        caller = self._caller()
        try:
            key = ("<new>", generic, cls.path, cls.qualname, cls.digest,
                   tuple(value_key(a) for a in args), tuple((k, value_key(v)) for k, v in kwargs.items()))
        except RecursionError:
            return UNKNOWN
        entry = self.memo.get(key)
        if entry is not None and not entry.stale and self._valid(entry):
            self._mark_live(entry)
            result = entry.result
        else:
            entry = Entry(key, cls.qualname + ".<new>")
            unit = _PseudoUnit(cls.qualname + ".<new>")
            frame = Frame(self, unit, cls.path, entry)
            self.stack.append(frame)
            self._collect.append(entry.children)
            try:
                inst = Instance(cls)
                inst.origin = entry
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
            if frame.pure:
                self._store(entry)
            else:
                self._merge_into_caller(entry)
        if caller is not None and entry.key in self.memo:
            caller.entry.deps.append((cls, tuple(args), tuple(kwargs.items()), value_key(result),
                                      tuple(self.module_pos.items())))
        return result

    def _dataclass_init(self, inst, cls, args, kwargs):
        fields = []
        for c in reversed(cls.mro()):
            for f in getattr(c, "fields", []):
                if f not in fields:
                    fields.append(f)
        args = list(args)
        for f in fields:
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
    def get_attr(self, frame, obj, name, node=None):
        from .dispatch import external_attr
        if isinstance(obj, Instance):
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
            if obj.cls.is_module():
                return external_attr(self, Ref("torch.nn.Module"), name, obj)
            return UNKNOWN
        if isinstance(obj, ClassVal):
            v = obj.lookup(name)
            if isinstance(v, FunctionVal) and "classmethod" in v.decorators:
                return BoundMethod(v, obj)
            return v if v is not None else UNKNOWN
        if isinstance(obj, ModuleNS):
            return obj.env.get(name, UNKNOWN)
        if obj is UNKNOWN:
            return UNKNOWN
        return external_attr(self, obj, name, None)

    def subscript(self, frame, obj, index, node):
        from .dispatch import subscript_value
        return subscript_value(self, obj, index, (frame, node))

    # -- operators -------------------------------------------------------------------------
    def binop(self, frame, op, a, b, node, inplace=False):
        from .dispatch import binary_op
        return binary_op(self, op, a, b, (frame, node), inplace)

    def unaryop(self, frame, op, a, node):
        if op == "not":
            t = self.truth(frame, a)
            return (not t) if isinstance(t, bool) else (S.not_(a) if isinstance(a, S.Cond) else UNKNOWN)
        from .dispatch import unary_op
        return unary_op(self, op, a, (frame, node))

    def compare(self, frame, node, env):
        from .dispatch import compare_values
        left = self.eval(frame, node.left, env)
        result = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(frame, comp, env)
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
                    return v if not undecided else UNKNOWN
                if t is None:
                    undecided.append(v)
            last = v
        if undecided:
            conds = [u for u in undecided if isinstance(u, S.Cond)]
            if len(conds) == len(undecided):
                return S.and_(*conds) if node.op == "and" else S.or_(*conds)
            return UNKNOWN
        return last

    def truth(self, frame, v):
        """True / False when known, else None. Symbolic conditions go to the solver."""
        if isinstance(v, bool):
            return v
        if v is None:
            return False
        if isinstance(v, int):
            return v != 0
        if isinstance(v, (float, str)):
            return bool(v)
        if isinstance(v, S.Cond):
            verdict = self.decide(frame, v)
            return verdict
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
        return None

    def decide(self, frame, cond):
        from . import solver
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
            return list(v.items)
        if isinstance(v, DictVal):
            return list(v.items.keys())
        if isinstance(v, Container):
            return list(v.items) if v.kind != "ModuleDict" else list(v.keys or [])
        if isinstance(v, str):
            return list(v)
        if isinstance(v, TensorValue):
            if v.shape and isinstance(v.shape[0], int) and v.shape[0] <= 64:
                return [TensorValue(v.shape[1:], v.dtype)] * v.shape[0]
            return None
        if isinstance(v, _LazyIter):
            return v.items
        if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
            return self.iterate(frame, v.attrs["__container__"])
        return None

    def element_of(self, v):
        """What one item of an iterable of unknown length looks like."""
        if isinstance(v, TensorValue) and v.shape:
            return TensorValue(v.shape[1:], v.dtype)
        if isinstance(v, ListVal) and v.items:
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
        if isinstance(a, TensorValue) and isinstance(b, TensorValue):
            if a == b:
                return a
            dtype = a.dtype if a.dtype == b.dtype else None
            if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
                return TensorValue(None, dtype)
            return TensorValue(tuple(x if (x == y if not isinstance(x, S.Expr) else x == y) else UNKNOWN
                                     for x, y in zip(a.shape, b.shape)), dtype)
        if isinstance(a, ListVal) and isinstance(b, ListVal) and a.kind == b.kind and len(a.items) == len(b.items):
            if value_key(a) == value_key(b):
                return a
            return ListVal([self.join(x, y) for x, y in zip(a.items, b.items)], a.kind)
        try:
            if value_key(a) == value_key(b):
                return a
        except RecursionError:
            pass
        return UNKNOWN

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
        keys = set(live[0])
        for e in live[1:]:
            keys &= set(e)
        for k in keys:
            v = live[0][k]
            for e in live[1:]:
                v = self.join(v, e[k])
            out[k] = v
        # A name bound on only some paths is Unknown afterwards.
        for e in live:
            for k in e:
                if k not in out:
                    out[k] = UNKNOWN
        return out

    # =====================================================================================
    # Facts and diagnostics
    # =====================================================================================
    def record(self, frame, nid, value, target=False):
        if isinstance(value, TensorValue) or (isinstance(value, ListVal) and value.items and
                                               any(isinstance(x, TensorValue) for x in value.items)):
            _add_fact(frame.entry.facts, (frame.path, frame.unit.key, nid), value)
            if target:
                frame.entry.facts.setdefault(("<targets>", frame.path, frame.unit.key), []).append(nid)

    def note_origin(self, frame, nid, text):
        """Where a value came from, for hover: "conv2d(Tensor[8, 1, 28, 28], ...)"."""
        key = ("<origin>", frame.path, frame.unit.key, nid)
        notes = frame.entry.facts.setdefault(key, [])
        if text not in notes and len(notes) < 3:
            notes.append(text)

    def report(self, site, severity, code, message, related=(), repair=None):
        if site is None:
            return
        frame, node = site
        rec = DiagRecord((frame.path, frame.unit.key), node.nid, severity, code, message, related, repair)
        frame.entry.diags[rec.key()] = rec

    def note_unknown_op(self, name):
        # Kept in the entry, so a memoized run still reports the calls it made.
        counts = self.stack[-1].entry.unknown_ops if self.stack else self.unknown_ops
        counts[name] = counts.get(name, 0) + 1


_MISSING = object()  # a required parameter the call did not give


class _PseudoUnit:
    """The unit of a constructor call (it has no code of its own)."""

    kind = "function"
    params = ()
    body = ()

    def __init__(self, key):
        self.key = key


class _LazyIter:
    def __init__(self, items):
        self.items = items


def _is_module_value(v) -> bool:
    return isinstance(v, (NNModule, Container)) or (isinstance(v, Instance) and v.cls.is_module())


def _unknown_shape(v) -> bool:
    """A value that may be a tensor whose shape the analysis does not know."""
    if v is UNKNOWN:
        return True
    if isinstance(v, TensorValue):
        return v.shape is None or any(d is UNKNOWN for d in v.shape)
    return False


def _add_fact(facts, key, value):
    vals = facts.get(key)
    if vals is None:
        facts[key] = [value]
        return
    if len(vals) >= MAX_VARIANTS:
        facts[("<many>",) + key] = [True]  # more shapes than we keep: the join must say so
        return
    k = value_key(value)
    for v in vals:
        if value_key(v) == k:
            return
    vals.append(value)


def _definitely_broke(out, continues):
    return out is None and not continues


def _env_key(env):
    try:
        return tuple(sorted((k, value_key(v)) for k, v in env.items()))
    except (RecursionError, TypeError):
        return None


def _tensor_syms(t):
    out = set()
    for d in t.shape or ():
        out |= S.free_symbols(d)
    return out


def _hashable(v):
    return isinstance(v, (int, str, float, bool, type(None))) and not isinstance(v, S.Expr)


def _shape_source(node):
    """`x.shape` / `x.size()` -> "x" (the tensor variable whose shape is unpacked)."""
    if isinstance(node, ir.Attr) and node.name == "shape" and isinstance(node.obj, ir.Name):
        return node.obj.id
    if isinstance(node, ir.Call) and not node.args and isinstance(node.func, ir.Attr) \
            and node.func.name == "size" and isinstance(node.func.obj, ir.Name):
        return node.func.obj.id
    return None


def _ref_name(v):
    return v.name if isinstance(v, Ref) else None


def _is_static(fn):
    return "staticmethod" in fn.decorators


def _class_qualname(s, cls_env):
    for v in cls_env.values():
        if isinstance(v, FunctionVal):
            return v.unit_key.rsplit(".", 1)[0]
    return s.name


def _short(path):
    return path.rsplit("/", 1)[-1]


def _module_name(path):
    return _short(path).rsplit(".", 1)[0]
