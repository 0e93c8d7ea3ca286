"""Statements and assignment: control flow (branches, loops with fixpoints), defs,
classes, imports, asserts, and writes to names, attributes and items. Mixed into
`infer.Engine`."""
from __future__ import annotations

import copy
import sys
from contextlib import contextmanager

from . import ir
from . import shapes as S
from .ops.spec import REGISTRY, TensorValue
from .shapes import UNKNOWN
from .values import (BoundMethod, ClassVal, Container, DictVal, FunctionVal, Instance, ListVal, ModuleNS,
                     NNModule, Obj, PartialVal, Ref, SliceVal, is_tensor, value_key)
from . import branchheap, calltrace, datasources, flags, generic, pybuiltins, values
from .alternatives import is_callable
from .annotations import shape_from_comment, tensor_from_annotation
from .frames import (MAX_UNROLL, escape, over_step_limit, _copy_env, _is_module_value,
                     _definitely_broke, _env_key, _tensor_syms, _hashable, _shape_source,
                     _ref_name, _class_qualname)


MAX_WHILE_ROUNDS = 64  # rounds of a `while` run one by one before it is a loop of unknown count


class StatementsMixin:
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
        if self.steps > self.step_limit:  # the budget, and polling the cancel hook (frames)
            over_step_limit(self)
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
            v = s.value
            if type(v) is ir.Call and v.args and not v.args[0].name and \
                    _is_ref(self.eval(frame, v.func, env, record=False), "torch._assert"):
                generic.rank_assertion(self, frame, v.args[0].value, env)  # `torch._assert(x.dim() == 3, ...)`
            self.eval(frame, v, env)
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
            if self._shadowed_def(frame, s):
                env[s.name] = UNKNOWN
                return env
            fn = self.make_function(frame, s, env)
            self.record(frame, s.nid, fn, target=False)
            getter = env.get(s.name)
            if isinstance(getter, FunctionVal) and "property" in getter.decorators and \
                    any(isinstance(d, ir.Attr) and d.name in ("setter", "deleter") for d in s.decorators):
                # `@heads.setter def heads(...)`: reading `self.heads` still runs the getter,
                # and `self.heads = v` runs the setter (set_attr)
                if any(d.name == "setter" for d in s.decorators if isinstance(d, ir.Attr)):
                    getter = copy.copy(getter)
                    getter.setter = fn
                    env[s.name] = getter
                return env
            env[s.name] = self._decorated(frame, s, fn, env)
            return env
        if t is ir.ClassDef:
            env[s.name] = self.make_class(frame, s, env)
            return env
        if t in (ir.Import, ir.ImportFrom) and self._optional_library_import(frame, s):
            for name in _bound_names(s):
                env[name] = UNKNOWN
            return env
        if t is ir.Import:
            if frame.import_guard:
                frame.may_raise = True  # whether it imports may depend on the environment
            if (frame.import_guard or _way_of_a_guess(frame)) and \
                    any(self._import_fails(frame, dotted, 0) for dotted, _ in s.names):
                return None  # raises ImportError: the try's handler (or the other way) runs instead
            for dotted, alias in s.names:
                if alias:
                    env[alias] = self.import_module(frame, dotted)
                else:
                    top = dotted.split(".")[0]
                    env[top] = self.import_module(frame, top)
            return env
        if t is ir.ImportFrom:
            if frame.import_guard and not _modelled_torch_names(s):
                frame.may_raise = True  # whether it imports may depend on the environment
            if (frame.import_guard or _way_of_a_guess(frame)) and s.module and \
                    self._import_fails(frame, s.module, s.level):
                return None  # raises ImportError: the try's handler (or the other way) runs instead
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
            guard = any(_catches_import_error(h) for h, _, _ in s.handlers)
            frame.import_guard += guard
            raised_before, frame.may_raise = frame.may_raise, False
            try:
                out = self.exec_block(frame, s.body, env)
            finally:
                frame.import_guard -= guard
                raised = frame.may_raise
                frame.may_raise = raised_before or raised
            if out is not None and s.orelse:
                out = self.exec_block(frame, s.orelse, out)
            # A body that ran with every value known, no raise reached and no callee that
            # may raise takes none of its handlers (`try: ... hasattr(obj, "ndim") ...`).
            for _type, name, body in (s.handlers if raised else ()):
                henv = _copy_env(start)
                if name:
                    henv[name] = UNKNOWN
                with self._module_scope(frame, henv):
                    out = self.join_env(out, self.exec_block(frame, body, henv))
            if s.finalbody and out is not None:
                out = self.exec_block(frame, s.finalbody, out)
            return out
        if t is ir.Delete:
            self.exec_delete(frame, s, env)
            return env
        if t is ir.Simple:
            if s.kind == "raise":
                frame.may_raise = True
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
                if any(a is UNKNOWN for a in value.shape):
                    # a dim the analysis does not know is the one the code states
                    return TensorValue(tuple(b if a is UNKNOWN else a for a, b in zip(value.shape, declared.shape)),
                                       value.dtype)
            return value
        if value is UNKNOWN or (is_tensor(value) and value.shape is None):
            if declared.shape is None and is_tensor(value):
                return value  # `x: torch.Tensor = ...` says no more than the value (a probe, a known last dim)
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
        # A test on default flags or values that may be None (`if not self.receives_context:`,
        # `if exists(pos_emb):`): each way sees what they are there (analysis.flags).
        sp = flags.split(self, frame, s.test, env, statement=True)
        if sp is not None and not (sp.possible(True) and sp.possible(False)):
            return self.exec_block(frame, s.body if sp.possible(True) else s.orelse, env)
        on_true, on_false = (sp.values_when(True), sp.values_when(False)) if sp is not None else ({}, {})
        given = flags.none_test(s.test, env) if sp is None else None

        def way(body, assumed, values, truth=None):
            way_env = _copy_env(env)
            if sp is not None:
                flags.bind(self, frame, sp, way_env, values)
            if given is not None and truth is given[2] and way_env is not None:
                # `if representation_size is not None:` (or the else of `is None`): given.
                name, none, _ = given
                value = way_env[name] = S.sym(none.name)
                out = self._branch(frame, body, way_env, assumed, s.nid)
                if out is not None and out.get(name) is value:
                    out[name] = none  # unchanged: the None default again where the ways meet
                return out
            return self._branch(frame, body, way_env, assumed, s.nid)

        left = {}  # way -> it ended by return, break or continue (not by raising)

        def exits() -> int:
            loops = frame.loops[-1] if frame.loops else ((), ())
            return len(frame.returns) + len(loops[0]) + len(loops[1])

        def run(truth, body, t, values):
            if sp is None:  # (only a flag's ways are looked at below)
                return way(body, t, values, truth)
            before = exits()
            result = way(body, t, values, truth)
            left[truth] = exits() != before
            return result

        generic.rank_guard(self, frame, s, env)
        tested = generic.rank_tested_probe(self, frame, s.test, env)
        if tested is not None:
            self.__dict__.setdefault("rank_tests", []).append(tested)
        try:
            a, b = branchheap.run_both_ways(
                self, lambda: run(True, s.body, test, on_true),
                lambda: run(False, s.orelse, S.not_(test) if isinstance(test, S.Cond) else test, on_false))
        finally:
            if tested is not None:
                self.rank_tests.pop()
        out = self.join_env(a, b)
        if given is not None and a is not None and b is not None:
            _keep_parameter_sizes(out, *((b, a) if given[2] else (a, b)))
        if sp is not None and out is not None:
            # Where only one way goes on (`if flag: return ...`), the flags have its values.
            goes_on = on_false if a is None else on_true if b is None else \
                {i: v for i, v in on_true.items() if i in on_false and on_false[i] is v}
            flags.rebind(self, out, sp, goes_on)
            if (a is None or b is None) and not left.get(a is None):
                # (a way that raises, not one that leaves by `continue` or `return`)
                flags.note_dead_values(self, sp, on_true if a is None else on_false)
        return out

    def _branch(self, frame, body, env, test, nid):
        """One side of an `if` whose test is not decided: it may be dead code for the values
        the real program has (a residual path taken only when inp == oup), so nothing in it
        is reported, nor in the calls it makes (a call into a def or a library on that way
        meets what the way assumed, `y = torch.zeros(0)` when no cache is given: the call is
        an edge on an undecided way, frames.decided); its shapes still are, computed with the
        test (when symbolic) assumed."""
        mark = len(frame.assumptions)
        if isinstance(test, S.Cond):
            frame.assumptions.append((test, ((frame.path, frame.unit.key), nid)))
        frame.blind += 1
        try:
            with self._module_scope(frame, env):
                return self.exec_block(frame, body, env)
        finally:
            frame.blind -= 1
            del frame.assumptions[mark:]

    @contextmanager
    def _module_scope(self, frame, env):
        """A path of a module's top level that runs on its own copy of the globals: while
        it runs, that copy is the module's globals, so a function it defines and calls
        reads what the path bound before (the paths are joined into the module after)."""
        if not frame.is_module or frame.closure or env is None:  # a class body: not globals
            yield
            return
        saved = self.module_envs.get(frame.path), frame.globals_env
        self.module_envs[frame.path] = frame.globals_env = env
        try:
            yield
        finally:
            self.module_envs[frame.path], frame.globals_env = saved

    def _import_fails(self, frame, module, level) -> bool:
        """An import no file can satisfy: a relative one with no module there, or an
        absolute one that neither the workspace nor any folder of the library path has
        (in any form, compiled too), and that is not a modelled or standard module."""
        if level > 0:
            return self.program.resolve_module(frame.path, module, level) is None
        root = module.split(".")[0]
        if _modelled_by_name(module):
            return False
        if self.program.resolve_module(frame.path, module, 0) is not None:
            return False
        return not self.program.libraries.has_top_level(root)

    def exec_for(self, frame, s, env):
        iterable = self.eval(frame, s.iter, env)
        items = self.iterate(frame, iterable)
        prefix = known_prefix(iterable) if items is None else []
        if prefix and len(prefix) <= MAX_UNROLL:
            # [stem] + blocks appended in a loop of unknown count: the stem runs first, then
            # the loop's element any number of times.
            env = self._unrolled(frame, s, prefix, env)
            if env is None:
                return None
            element = self.element_of(iterable)
            return self._fixpoint(frame, s, env, lambda e: self.assign(frame, s.target, element, e, None))
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

    def _unrolled(self, frame, s, items, env):
        """The body run once per known item (no else clause); None when it returned."""
        for item in items:
            frame.loops.append(([], []))
            self.assign(frame, s.target, item, env, None)
            out = self.exec_block(frame, s.body, env)
            breaks, continues = frame.loops.pop()
            env = self.join_env(out, *continues, *breaks)
            if env is None:
                return None
        return env

    def exec_while(self, frame, s, env):
        # Run round by round while the test is decided (`while len(x.shape) < 4: x =
        # x.unsqueeze(-1)`, a counter with known bounds); from the first round whose test
        # or break is not decided, as a loop of unknown trip count.
        for _ in range(MAX_WHILE_ROUNDS):
            truth = self.truth(frame, self.eval(frame, s.test, env))
            if truth is False:
                return self.exec_block(frame, s.orelse, env) if s.orelse else env
            if truth is not True:
                break
            before = _copy_env(env)
            frame.loops.append(([], []))
            out = self.exec_block(frame, s.body, env)
            breaks, continues = frame.loops.pop()
            if breaks:
                if _definitely_broke(out, continues):
                    return self.join_env(*breaks)
                env = before  # (a break that may happen: this round again, as any round)
                break
            env = self.join_env(out, *continues)
            if env is None:
                return None
        return self._fixpoint(frame, s, env, lambda e: None)

    def _fixpoint(self, frame, s, env, bind):
        """Run a loop body of unknown trip count until the environment is stable."""
        writes: dict = {}  # id -> (object, its length before the loop's first write)
        self._loop_writes.append(writes)
        frame.unknown_loops += 1
        try:
            return self._fixpoint_iterations(frame, s, env, bind)
        finally:
            frame.unknown_loops -= 1
            self._loop_writes.pop()
            # A list appended to a number of times we do not know has unknown contents;
            # what the loop appended is kept as its element (`for _ in range(depth):
            # layers.append(Block(dim))` is depth blocks that all look alike).
            for obj, before in writes.values():
                if isinstance(obj, (ListVal, Container)) and not getattr(obj, "unknown", False):
                    obj.prefix = before or 0  # the items it had before the loop stay known
                if isinstance(obj, (ListVal, DictVal, Container)):
                    added = obj.items[before:] if isinstance(obj, (ListVal, Container)) and before is not None else []
                    if getattr(obj, "unknown", False):
                        # already of unknown length: its writes kept the element up to date
                        # (added_after_loop, set_item)
                        element = getattr(obj, "element", None)
                        if "suffix" in obj.__dict__:
                            obj.suffix = None  # a second loop: what comes last is not known
                    else:
                        element = values.join_alike(self, added) if added else None
                        if element is None and added:
                            element = _one_round(self, added)
                    obj.unknown = True
                    obj.element = element
                    values.changed(obj)

    def _fixpoint_iterations(self, frame, s, env, bind):
        entry_env = _copy_env(env)
        current = _copy_env(env)
        for _ in range(4):
            frame.loops.append(([], []))
            body_env = _copy_env(current)
            bind(body_env)
            out = self.exec_block(frame, s.body, body_env)
            breaks, continues = frame.loops.pop()
            self.loop_merging += 1  # (a value before the loop is no way of one after it: partly_known.join)
            try:
                merged = self.join_env(current, out, *continues, *breaks)
            finally:
                self.loop_merging -= 1
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
                self.loop_merging += 1
                try:
                    out[k] = self.join(before[k], v)
                finally:
                    self.loop_merging -= 1
        return out

    def exec_assert(self, frame, s, env):
        generic.rank_assertion(self, frame, s.test, env)
        test = self.eval(frame, s.test, env)
        if test is not True:
            frame.may_raise = True
        if test is False:
            return None
        if isinstance(test, S.Cond):
            frame.assumptions.append((test, ((frame.path, frame.unit.key), s.nid)))
            frame.hard_syms |= test.symbols()
        elif self.truth(frame, test) is None:
            # `assert not (self.causal and mask is None)`: the flags keep the values for
            # which it holds (analysis.flags).
            sp = flags.split(self, frame, s.test, env)
            if sp is not None and sp.possible(True):
                flags.rebind(self, env, sp, sp.values_when(True))
        return env

    def _optional_library_import(self, frame, s) -> bool:
        """An import on a way of an `if` not decided at a library module's top level (`if
        is_transformers_available(): from transformers import CLIPTextModel`, `if
        TYPE_CHECKING or DIFFUSERS_SLOW_IMPORT: from .models import ...`): an optional
        integration, not followed (its names are Unknown). Following every such way made
        one diffusers file read 1,100 modules. Names the engine models without reading a
        file (torch, numpy, the standard library: `if torch_version >= (1, 7): import
        torch.fft`) are bound as anywhere else."""
        if not (frame.is_module and frame.blind > 0 and self.program.is_library(frame.path)):
            return False
        modules = [dotted for dotted, _ in s.names] if isinstance(s, ir.Import) else \
            [s.module if s.level == 0 else ""]
        return any(not _modelled_by_name(m) for m in modules)

    def exec_import_from(self, frame, s, env):
        if s.level == 0 and (s.module.split(".")[0] in pybuiltins.EXTERNAL_ROOTS
                             or s.module.startswith(datasources.DATA_PREFIXES)):
            for name, alias in s.names:
                if name == "*":
                    continue
                env[alias or name] = pybuiltins.import_name(s.module, name)
            return
        other = self.program.resolve_module(frame.path, s.module, s.level)
        if other is not None and self._lazy_package(other):
            for name, alias in s.names:
                if name != "*":
                    dotted = (s.module + "." if s.module else "") + name
                    env[alias or name] = self.library_attr(other, dotted, name, frame.path, s.level)
            if any(name == "*" for name, _ in s.names):
                env.update({k: v for k, v in self.run_module(other, as_main=False).items() if not k.startswith("_")})
            return
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
                # a namespace package (no __init__.py: pytorch_tabnet) has its submodules
                sub = s.module and s.level == 0 and self.program.resolve_module(frame.path, f"{s.module}.{name}", 0)
                env[alias or name] = self.import_module(frame, f"{s.module}.{name}") if sub else \
                    pybuiltins.import_name(s.module, name) if s.level == 0 else UNKNOWN

    def import_module(self, frame, dotted):
        root = dotted.split(".")[0]
        if root in pybuiltins.EXTERNAL_ROOTS or dotted.startswith(datasources.DATA_PREFIXES):
            return Ref(dotted)
        other = self.program.resolve_module(frame.path, dotted, 0)
        if other is not None:
            if self._lazy_package(other):
                return ModuleNS(other, None, dotted)
            return ModuleNS(other, self.run_module(other, as_main=False))
        return Ref(dotted)

    # -- installed libraries (analysis.libraries): packages are entered lazily ---------------
    def _lazy_package(self, path) -> bool:
        return path.endswith("__init__.py") and self.program.is_library(path)

    def library_attr(self, package, dotted, name, from_path=None, level=0):
        """`name` of a library package: its submodule, else what its `__init__` imports it
        from (run alone), else the package's whole top level. `dotted` names the submodule
        (relative to `from_path` with `level`, or absolute)."""
        if level == 0 and dotted.startswith(datasources.DATA_PREFIXES):
            return Ref(dotted)  # datasets and transforms are modelled by name
        sub = self.program.resolve_module(from_path or package, dotted, level) if dotted else None
        if sub is not None and sub != package:
            if self._lazy_package(sub):
                return ModuleNS(sub, None, dotted if level == 0 else "")
            return ModuleNS(sub, self.run_module(sub, as_main=False))
        found = self._reexport(package, name)
        if found is not None:
            module, original = found
            return self.run_module(module, as_main=False).get(original, UNKNOWN)
        return self.run_module(package, as_main=False).get(name, UNKNOWN)

    def _reexport(self, package, name, depth=0):
        """(module, name there) that a package's `__init__` imports `name` from, following
        packages that re-export it in turn; None when it binds it some other way."""
        unit = self.program.units(package).get("<module>") if depth < 8 else None
        for stmt in unit.body if unit is not None else ():
            if not isinstance(stmt, ir.ImportFrom):
                continue
            for original, alias in stmt.names:
                if (alias or original) != name or original == "*":
                    continue
                module = self.program.resolve_module(package, stmt.module, stmt.level)
                if module is None or module == package:
                    return None
                if self._lazy_package(module):
                    return self._reexport(module, original, depth + 1) or (module, original)
                return module, original
        return None

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

    def _shadowed_def(self, frame, s: ir.FuncDef) -> bool:
        """Units are keyed by qualified name, so of two module-level defs with one name
        (`def f` again further down, a class defined in both branches of an `if`) only the
        last has a unit: the others must not run its body as theirs (a wrong shape). They are
        Unknown. (Within one def or class body each def has its own unit: lower.py.)"""
        unit = self.program.unit(frame.path, s.unit_key)
        if unit is None:
            return False
        own = frame.unit.span(s.nid) if hasattr(frame.unit, "span") else None
        header = unit.span(ir.HEADER_NID)
        return own is not None and header is not None and own[0] != header[0]

    def _decorated(self, frame, s: ir.FuncDef, fn, env):
        """`@deco def f` is `f = deco(f)` when `deco` is a function of the program (a
        wrapper taking `key_namespace=`, a registry): its result replaces `f` if it is a
        function again, or an object of a program class that has `__call__` (a memoising
        wrapper). Library decorators (torch.no_grad(), functools.wraps, lru_cache) and
        staticmethod/classmethod/property keep `f` itself, as does a result the engine
        cannot call. The wrapped def stays reachable (`wrapped`) for its own analysis."""
        if not s.decorators or any(name in _METHOD_KINDS for name in fn.decorators):
            return fn
        value = fn
        for d in reversed(s.decorators):
            deco = self.eval(frame, d, env, record=False)
            if not isinstance(deco, (FunctionVal, PartialVal, BoundMethod)):
                continue
            out = self.call_value(deco, [value], {}, (frame, d))
            if isinstance(out, (FunctionVal, PartialVal, BoundMethod)) or _program_callable(out):
                value = out
        if value is not fn:
            value.wrapped = fn
        return value

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
        # The class body runs in its own namespace; names it does not bind are read from the
        # enclosing one (as from a closure: no copy of a module's thousand globals per class).
        saved = frame.closure
        frame.closure = [env] + (saved or [])
        try:
            cls_env = self.exec_block(frame, s.body, {}) or {}
        finally:
            frame.closure = saved
        digest = s.digest
        decorators = [self._deco_name(frame, d, env) for d in s.decorators]
        cls = ClassVal(_class_qualname(s, cls_env), bases, cls_env, digest, frame.path)
        cls.decorators = decorators
        cls.fields = [t.target.id for t in s.body if isinstance(t, ir.AnnAssign) and isinstance(t.target, ir.Name)]
        cls.int_fields = {t.target.id for t in s.body if isinstance(t, ir.AnnAssign) and isinstance(t.target, ir.Name)
                          and isinstance(t.annotation, ir.Name) and t.annotation.id == "int"}  # (configs.py)
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
            if target.name == "data" and isinstance(obj, TensorValue) and isinstance(value, TensorValue) and \
                    value.shape is not None and not self._layer_parameter(frame, target.obj, env):
                # `self.W.data = W.to(dtype)` swaps the tensor a parameter holds: its shape
                # and dtype from here on are the new one's (a value not known swaps nothing).
                self._rebind_receiver(frame, target.obj, value, env)
                return
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
        if generic.is_probe(value) and not value.derived and not value.weak:
            # `mem, cmem = memories`: a tuple of values, given (infer._run_with_instances)
            generic.record(frame, value, "items", len(targets))
        items = self.iterate(frame, value)
        if items is None and (not isinstance(value, ListVal) or getattr(value, "unknown", False)) and star == []:
            # `B, C, H, W = x.shape` on a tensor of unknown rank: the rank is now known and
            # the dims get the names the code gives them.
            refined = self._refine_from_unpack(frame, target, value_node, env)
            if refined is not None:
                items = refined
        if items is None and not star:
            items = _unpacked_pieces(value, len(targets))
        element = self.element_of(value) if items is None and star and isinstance(value, ListVal) \
            and getattr(value, "unknown", False) else UNKNOWN
        if element is not UNKNOWN:
            # `*x, x_pass = x.chunk(amt + 1, dim=-1)`: pieces of a count not known, all alike:
            # each named one is such a piece, the starred ones a list of them.
            known = known_prefix(value)
            i = star[0]
            for j, x in enumerate(targets[:i]):
                self.assign(frame, x, known[j] if j < len(known) else element, env, None)
            self.assign(frame, targets[i], values.alike(element, "list"), env, None)
            for x in targets[i + 1:]:
                self.assign(frame, x, element, env, None)
            return
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
        """`B, C, H, W = x.shape`, or `b, n, _, h = *x.shape, self.heads`: the dims the
        shape fills get the names the code gives them (`_` a fresh one each)."""
        rest = 0
        if isinstance(value_node, ir.TupleE) and value_node.elts and isinstance(value_node.elts[0], ir.Starred):
            rest = len(value_node.elts) - 1  # the values after the unpacked shape
            if any(isinstance(e, ir.Starred) for e in value_node.elts[1:]):
                return None
            tensor_name = _shape_source(value_node.elts[0].value)
        else:
            tensor_name = _shape_source(value_node)
        if tensor_name is None or not all(isinstance(x, ir.Name) for x in target.elts) \
                or len(target.elts) <= rest:
            return None
        t = env.get(tensor_name)
        if not (is_tensor(t) and t.shape is None):
            return None
        names = tuple(x.id if x.id != "_" else f"_{i}" for i, x in enumerate(target.elts[:len(target.elts) - rest]))
        if generic.is_probe(t):
            generic.record(frame, t, "unpack", names)
            return None  # the rank is all a probing run needs (see generic.py)
        dims = tuple(S.sym(n) for n in names)
        env[tensor_name] = TensorValue(dims, t.dtype)
        if rest:
            return self.iterate(frame, self.eval(frame, value_node, env, record=False))
        return list(dims)

    def _layer_parameter(self, frame, node, env) -> bool:
        """`self.conv.weight`: a parameter of a modelled layer, whose shapes come from the
        layer's hyperparameters (a `.data` swap there changes values, not the layer's sizes)."""
        return type(node) is ir.Attr and isinstance(self.eval(frame, node.obj, env, record=False), NNModule)

    def set_attr(self, frame, obj, name, value, raw=False):
        hook = obj.cls.attribute_hook("__setattr__") if isinstance(obj, Instance) and not raw else None
        if hook is not None:
            # The class stores every write itself (a config's aliases); its
            # `super().__setattr__` is the plain store below.
            self.call_user(hook, [obj, name, value], {})
            return
        setter = obj.cls.property_setter(name) if isinstance(obj, Instance) else None
        if setter is not None:  # `self.max_seq_length = n` of a property: its setter runs
            self.call_user(setter, [obj, value], {})
            return
        if isinstance(obj, Instance) and name == "__class__" and isinstance(value, ClassVal):
            # `layer.__class__ = MonotonicLinear`: the same object, its methods from then on
            self._mutated(obj)
            obj.cls = value
            return
        if isinstance(obj, Instance):
            self._mutated(obj)
            obj.attrs[name] = value
            inner = obj.attrs.get("__container__")
            if isinstance(inner, Container) and name != "__container__" and value is UNKNOWN:
                # An attribute of a Sequential subclass may be a layer torch registers and
                # runs: one we cannot see makes the container's forward unknown.
                self._mutated(inner)
                inner.unknown = True
            elif isinstance(inner, Container) and name != "__container__" and _is_module_value(value):
                # nn.Sequential & co. register submodules assigned as attributes, in order.
                self._mutated(inner)  # (in a loop of unknown trip count: items it adds are alike)
                keys = inner.keys if inner.keys is not None else []
                if name in keys:
                    inner.items[keys.index(name)] = value
                else:
                    values.added_after_loop(self, inner, [value])
                    inner.items.append(value)
                    inner.keys = keys + [name]
        elif isinstance(obj, NNModule):
            self._mutated(obj)
            obj.attrs[name] = value
        elif isinstance(obj, ModuleNS) and obj.env is not None:
            # `setattr(litgpt.model, "LLaMAMLP", LLaMAMLP)`: the module's global from now on
            self._shared_state_changed()
            obj.env[name] = value
        elif isinstance(obj, ClassVal) and getattr(obj, "path", ""):
            # `HyperConnections.get_init_and_expand_reduce_stream_functions = staticmethod(...)`
            # after the class body: a class attribute like the body's own (in a call, the
            # call is not memoized: it changed a class other calls read)
            self._shared_state_changed()
            obj.attrs[name] = value
            obj.__dict__.pop("_key", None)  # (values.value_key: the class's attributes)
            obj.__dict__.pop("_attribute_hooks", None)
        elif isinstance(obj, TensorValue) and name == "requires_grad":
            calltrace.requires_grad(self, obj, value)  # which parameters train: the summary's
        elif isinstance(obj, Ref) or obj is UNKNOWN:
            # `Transform.call_and_ladj = _call_and_ladj`: a def patched onto a class the
            # analysis does not read is called by code it does not see (frames.escape)
            escape(self, [value], {}, (frame, None))

    def exec_delete(self, frame, s: ir.Delete, env):
        """`del dims[dim + 1]` (a list's item, a dict's key) and `del x`; anything else is not
        modelled and keeps its value."""
        for target in s.targets:
            if isinstance(target, ir.Name):
                env.pop(target.id, None)
            elif isinstance(target, ir.Subscript):
                obj = self.eval(frame, target.obj, env, record=False)
                index = self.eval(frame, target.index, env, record=False)
                if isinstance(obj, Instance):
                    obj = values.user_container_data(obj) or obj
                if isinstance(obj, ListVal) and obj.kind == "list" and not getattr(obj, "unknown", False):
                    self._mutated(obj)
                    if type(index) is int and -len(obj.items) <= index < len(obj.items):
                        del obj.items[index]
                    else:  # an item not known: the list's length and items are not either
                        obj.items.clear()
                        obj.unknown = True
                elif isinstance(obj, DictVal) and not getattr(obj, "unknown", False):
                    self._mutated(obj)
                    if _hashable(index) and not isinstance(index, S.Expr):
                        obj.items.pop(index, None)
                    else:
                        obj.items.clear()
                        obj.unknown = True

    def set_item(self, frame, obj, index, value):
        if isinstance(obj, Instance):
            own = obj.cls.lookup("__setitem__")
            if isinstance(own, FunctionVal):
                self.call_user(own, [obj, index, value], {})
                return
            obj = values.user_container_data(obj) or obj  # (a dict subclass: its items)
        unknown_length = getattr(obj, "unknown", False)
        if isinstance(obj, ListVal) and isinstance(index, int) and \
                (0 if unknown_length else -len(obj.items)) <= index < len(obj.items):
            self._mutated(obj)
            obj.items[index] = value
        elif isinstance(obj, ListVal) and unknown_length and getattr(obj, "element", None) is not None:
            # `routed[i] = (...)` in a list of alike items: any item may now be this one
            self._mutated(obj)
            obj.element = values.join_alike(self, [obj.element, value])
            if not isinstance(index, int) or index < 0:
                obj.items[:] = [self.join(x, value) for x in obj.items]
        elif isinstance(obj, ListVal) and not getattr(obj, "unknown", False) and obj.kind == "list":
            self._mutated(obj)
            self._set_list_items(frame, obj, index, value)
        elif isinstance(obj, DictVal) and _hashable(index):
            self._mutated(obj)
            obj.items[index] = value
        elif isinstance(obj, Container):
            self._set_layer(obj, index, value)
        elif isinstance(obj, (ListVal, DictVal)):
            self._mutated(obj)
            if isinstance(obj, DictVal):
                # A key not known (`layers[f"block_{i}"] = Block(dim)` in a loop of unknown
                # count): keys not known, values like every value it holds (its element).
                held = [getattr(obj, "element", None)] if getattr(obj, "unknown", False) else list(obj.items.values())
                alike = [x for x in held if x is not None] + [value]
                obj.items.clear()
                obj.unknown = True
                obj.element = values.join_alike(self, alike) if None not in held else None
        # Tensor item assignment (x[..] = y) does not change x's shape.

    def _set_layer(self, c, index, value):
        """`self.prescalers[name] = nn.Linear(1, size)` in an nn.ModuleDict, `self.blocks[i] =
        block` in a ModuleList or Sequential: the layer is held there from now on (a key not
        known, or an index out of the known items: any layer may be this one, not known)."""
        self._mutated(c)
        if getattr(c, "unknown", False):
            if getattr(c, "element", None) is not None:
                c.element = values.join_alike(self, [c.element, value])
            return
        if c.kind == "ModuleDict" and isinstance(index, str):
            keys = c.keys if c.keys is not None else []
            if index in keys:
                c.items[keys.index(index)] = value
            else:
                c.items.append(value)
                c.keys = keys + [index]
            return
        if c.kind != "ModuleDict" and type(index) is int and -len(c.items) <= index < len(c.items):
            c.items[index] = value
            return
        c.items.clear()
        c.keys = None
        c.unknown, c.element, c.prefix = True, None, 0

    def _set_list_items(self, frame, obj, index, value):
        """`shape[a:b] = [n]` replaces a run of items; `shape[i] = n` with `i` not known
        may replace any one item, so each is what it was or `n` (their join)."""
        if isinstance(index, SliceVal):
            parts = (index.start, index.stop, index.step)
            items = self.iterate(frame, value)
            if items is not None and all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in parts):
                try:
                    obj.items[slice(*parts)] = items
                    return
                except ValueError:  # an extended slice of another length: Python raises
                    pass
            obj.items.clear()
            obj.unknown = True
            return
        if isinstance(index, bool) or isinstance(index, int):
            return  # out of range: Python raises
        obj.items[:] = [self.join(x, value) for x in obj.items]

    def _shared_state_changed(self):
        """A write to a module's globals or a class, which every call may read: the calls on
        the stack are not memoized (the module's top level runs once anyway)."""
        for f in self.stack[1:]:
            f.pure = False

    def _mutated(self, obj):
        """A write to a heap object: calls since its creator are impure (see module doc)."""
        self._noted_write(obj)
        for writes in self._loop_writes:
            if id(obj) not in writes:
                items = getattr(obj, "items", None)
                writes[id(obj)] = (obj, len(items) if isinstance(items, list) else None)
        creator = getattr(obj, "origin", None)
        for f in reversed(self.stack):
            if f.entry is creator:
                return
            f.pure = False
        if creator is not None:
            creator.stale = True

    def _noted_write(self, obj):
        """A write the ways of an undecided `if` must know of (branchheap: each way starts
        from the state before it), and that keys of `obj` computed before it are stale."""
        for writes in self._branch_writes:
            writes.note(obj)  # (before the write: the state its `if` started from)
        values.changed(obj)

    def new_obj(self, obj):
        obj.origin = self.stack[-1].entry if self.stack else None
        return obj


_METHOD_KINDS = {"staticmethod", "classmethod", "property", "cached_property", "setter", "getter", "deleter"}
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)


def _modelled_by_name(dotted: str) -> bool:
    """A module the engine knows by name, with no file to read (torch, numpy, the standard
    library, the datasets and transforms modelled in analysis.datasources)."""
    root = dotted.split(".")[0]
    return bool(root) and (root in pybuiltins.EXTERNAL_ROOTS or root in _STDLIB
                           or dotted.startswith(datasources.DATA_PREFIXES))


def _bound_names(s) -> list:
    """The names an `import` or `from ... import` statement binds (not `*`)."""
    if isinstance(s, ir.Import):
        return [alias or dotted.split(".")[0] for dotted, alias in s.names]
    return [alias or name for name, alias in s.names if name != "*"]


def _way_of_a_guess(frame) -> bool:
    """Inside a def, in one way of a branch whose test is not known (`if rectified_conv:
    from rfconv import RFConv2d`): an import no file satisfies raises there, so that way ends
    and the other one goes on. On the only way, or at a module's top level, the name is
    Unknown instead (the user's environment may just lack the package)."""
    return frame.blind > 0 and not frame.is_module


def _modelled_torch_names(s) -> bool:
    """`from torch.nn.functional import scaled_dot_product_attention` in a `try` kept for old
    PyTorch releases: every name is one the op specs model (the PyTorch they describe has
    it), so the import succeeds and the handler's fallback never runs."""
    if s.level or not (s.module == "torch" or s.module.startswith("torch.")):
        return False
    return all(name != "*" and pybuiltins.canonical_name(f"{s.module}.{name}") in REGISTRY for name, _ in s.names)


def _catches_import_error(exc_type) -> bool:
    """Does `except <exc_type>:` catch an ImportError (a bare except does)?"""
    if exc_type is None:
        return True
    if isinstance(exc_type, ir.TupleE):
        return any(_catches_import_error(e) for e in exc_type.elts)
    name = exc_type.id if isinstance(exc_type, ir.Name) else exc_type.name if isinstance(exc_type, ir.Attr) else None
    return name in _IMPORT_ERRORS




def _is_ref(v, name: str) -> bool:
    return isinstance(v, Ref) and v.name == name


def _one_round(engine, added):
    """Layers a loop appends a few at a time (`layers += [conv, nn.ReLU()]`), which do not
    all look alike: one round of them as a Sequential (each place joined over the rounds),
    so a Sequential or a loop over the list applies the rounds in order; None when the
    items are no layers or no round length up to 4 fits."""
    for p in range(2, 5):
        if len(added) % p:
            continue
        places = [values.join_alike(engine, added[j::p]) for j in range(p)]
        if all(x is not None and is_callable(x) and not isinstance(x, (FunctionVal, ClassVal)) for x in places):
            return Container("Sequential", places, [str(i) for i in range(p)])
    return None


def known_prefix(v) -> list:
    """The items a list of unknown length surely starts with (those it had before a loop of
    unknown count appended to it), [] when none."""
    if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
        v = v.attrs["__container__"]
    if not getattr(v, "unknown", False) or getattr(v, "element", None) is None:
        return []
    return list(v.items[:getattr(v, "prefix", 0)])


def _unpacked_pieces(value, m: int):
    """`a, b = x.chunk(2, dim=-1)` where the dim is a symbol not known to be even: the count
    of pieces is not known, but the unpack runs only when it is m, and every piece but the
    last has the split size (ops.joining._pieces): [(n + 1)//2, n - (n + 1)//2]. None when
    the pieces are not of that kind."""
    whole = getattr(value, "whole", None) if isinstance(value, ListVal) and getattr(value, "unknown", False) else None
    element = getattr(value, "element", None)
    if whole is None or whole.per is None or not isinstance(element, TensorValue) or getattr(value, "prefix", 0) \
            or not whole.kept_by(element.shape):
        return None  # (or a comprehension over the pieces that changed their size)
    d = whole.dim
    sizes = [whole.per] * (m - 1) + [S.sub(whole.size, S.mul(m - 1, whole.per))]
    return [TensorValue(element.shape[:d] + (size,) + element.shape[d + 1:], element.dtype) for size in sizes]



def _keep_parameter_sizes(out, none_env, given_env) -> None:
    """After `if name is None: ... else: config = CONFIGS[name]; dim = config['dim']` in a
    class nobody builds: a size that is its parameter's symbol on the None way and a number
    not known on the other (read from a table by the given name) stays that symbol where the
    ways meet. Both are some int the model is built with, and the symbol already stands for
    any; joined to Unknown, every layer built from it would lose its shape."""
    for k, v in out.items():
        if v is not UNKNOWN and v is not values.SOME_INT:
            continue
        mine, theirs = none_env.get(k), given_env.get(k)
        if _parameter_symbol(mine) and (theirs is UNKNOWN or theirs is values.SOME_INT):
            out[k] = mine


def _parameter_symbol(v) -> bool:
    return S.symbol_name(v) is not None


def _program_callable(v) -> bool:
    """An instance of a program class whose `__call__` is a def of the program."""
    return isinstance(v, Instance) and isinstance(v.cls.lookup("__call__"), FunctionVal)
