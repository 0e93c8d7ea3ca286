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

from .values import SOME_INT, ClassVal, FunctionVal, Instance, alike, value_key
from . import branchheap, values
from .frames import RESERVE_PER_DEF, UNCALLED_SHARE, Budget, Entry, budget_share, start_budget, stop_run, Frame, reachable, decided, _is_static, _short, _module_name
from .expressions import ExpressionsMixin
from .memo import MemoMixin
from .statements import StatementsMixin
from .annotations import tensor_from_annotation
from .ops.spec import TensorValue
from . import shapes as S
from .shapes import UNKNOWN
from .block_params import block_choices
from .name_uses import name_uses, number_parameters
from .generic import (DefaultBool, DefaultNone, RankProbe, broadcast_renaming, context_notes, conventional_lead_count,
                      decide_input, gather_uses, SEQUENCE_LEADS,
                      lead_count, ranked_from_tail)


class Engine(MemoMixin, StatementsMixin, ExpressionsMixin):
    """One analysis run: the module runs first, then defs no call reached."""

    def __init__(self, program, memo: dict, run_id: int, log: list, timeout_ms: int = 500):
        self.program = program  # analysis.db.Program: units and module envs by path
        self.memo = memo
        self.run_id = run_id
        self.log = log
        self.timeout_ms = timeout_ms
        self.stack: list = []
        self.steps = 0
        start_budget(self)  # the default budget; the host sets its own (db._analyze)
        self.live: dict = {}  # entry id -> Entry (computed by reachability from roots)
        self.real_ids: set = set()
        self.real_units: set = set()
        self.roots: list = []  # module runs and analyses of uncalled defs
        self.guess_roots: set = set()  # ids of roots run on a guessed flag world (flag_worlds)
        self.widen_roots: set = set()  # ... of those run with an optional input given, unknown (ide)
        self.last_probe_uses: dict = {}  # the uses of the inputs the probing runs decided, by (def, name)
        self.guess_classes: set = set()  # the classes of those worlds
        self.default_roots: set = set()  # ... of the worlds with every flag at its default
        self._collect: list = []  # stack of children lists being filled
        self._validating: list = []  # [stack depth, a re-asked call became impure]
        self._loop_writes: list = []  # per loop of unknown trip count: objects it mutated
        self._branch_writes: list = []  # per way of an undecided `if`: objects it mutated (branchheap)
        # Python semantics of module globals read by functions: a name the module binds only
        # after the statement now running is not visible yet. module_pos: path -> index of the
        # top-level statement running (absent once the module finished); bind_pos: path ->
        # {name: index of the statement that first bound it}.
        self.module_pos: dict = {}
        self.bind_pos: dict = {}
        values.new_run(run_id)
        self.unknown_ops: dict = {}
        self.module_envs: dict = {}  # path -> env of the module's top level
        # For memo._unchanged: modules whose top level re-ran in this run (their globals are
        # new objects), and entries already found unchanged.
        self.rerun_globals: set = set()
        self.unchanged_ids: set = set()
        self.called_units: set = set()
        self.escaped_units: set = set()
        self.replayed_units: set = set()
        self.replay_ids: set = set()  # entries of replay_widened's runs (ide: hovers only)
        self.soft_conditions: set = set()  # requirements on made-up symbols (dispatch._rests_on_soft)
        self.probing = 0  # > 0 while a generic context's inputs are being probed (generic.py)
        self.joining_probes = 0  # > 0 while inputs left open are probed again (probe_inputs)
        # > 0 while calling what may never run (one of a few modules, a second layer of a
        # Sequential of unknown length, a way partly known): no diagnostic, in any frame the
        # call opens; those calls are memoized apart (memo.call_user)
        self.silent = 0
        self.loop_merging = 0  # > 0 while a loop's environments merge (partly_known.join)
        self.probe_base: list = []  # stack depth at the start of each probing run
        self.deciding_base: list = []  # ... and of each run deciding inputs (_deciding_run)
        self.probe_record: list | None = None  # the probe entries of a generic run (memo.py)
        self.generic_runs: dict = {}  # (path, unit key) -> this run's generic runs (memo.py)

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
        self.rerun_globals.add(("<globals>", path))
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
                before, size = current, len(current)
                current = self.exec_stmt(frame, stmt, current)
                if current is None:
                    break
                if current is not env:
                    # A top-level `if`/`try` joins its paths into a new dict; the module's
                    # globals (read by its functions, returned to importers) are `env`.
                    env.update(current)
                    current = env
                # The interpreter never removes a global, so the names a statement bound
                # first are the last ones of the same dict (scanning it all is quadratic).
                names = itertools.islice(reversed(current), len(current) - size) if current is before else current
                for name in names:
                    bind_pos.setdefault(name, i)
        except (Budget, RecursionError) as exc:
            if isinstance(exc, RecursionError):  # nested deeper than Python's stack (frames.stop_run)
                stop_run(self, "recursion")
            entry.stale = True  # partial: its results are shown, never reused by a later run
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
        own: dict = {}  # unit key -> the entries of its generic call
        self._collect.append(collected)
        classes = self._classes_by_method(module_env)
        # Plain functions first: the models their runs build (factories: `resnet18(**kwargs)`
        # -> `ResNet(BasicBlock, [2, 2, 2, 2], **kwargs)`, or with no **kwargs) are the
        # contexts of the class's methods (recorded by ExpressionsMixin.construct).
        order = sorted(units.items(), key=lambda kv: kv[0] in classes)
        built: dict | None = None
        try:
            for index, (key, unit) in enumerate(order):
                if unit.kind != "function" or (key in self.called_units and key not in self.escaped_units) \
                        or "<locals>" in key:
                    continue
                if built is None and key in classes:
                    built = {}
                    found = self.__dict__.get("generic_notes", {}).get("factory_built", {})
                    for (cls_key, _), inst in found.items():
                        group = built.setdefault(cls_key, [])
                        if len(group) < MAX_FACTORY_INSTANCES and all(inst is not g for g in group):
                            group.append(inst)
                # What is left, but for a reserve for the defs after it (at least a share)
                after = len(order) - index - 1
                try:
                    with budget_share(self, self._uncalled_share(after), f"the run of {key}"):
                        self._run_uncalled_def(path, key, module_env, classes, built, collected, own)
                except Budget:
                    if self.stopped or self.steps >= self.whole_budget:
                        raise  # the whole budget is spent: what ran stays
                if key in self.replayed_units and key in self.real_units:
                    try:
                        with budget_share(self, self._uncalled_share(after), f"the replay of {key}"):
                            self.replay_widened(key, collected)
                    except Budget:
                        if self.stopped or self.steps >= self.whole_budget:
                            raise
        except Budget:
            pass  # the budget is spent (building a generic instance, say): what ran stays
        except RecursionError:
            stop_run(self, "recursion")  # (deeper than Python's stack): what ran stays
        self._collect.pop()
        self.keep_generic_runs(path)
        dropped = _reached_by_others(own, path, self.generic_runs)
        self.roots.extend(e for e in collected if e.id not in dropped)
        # A dropped run's ways may be ones no other run takes (`if exists(mask):` in an
        # attention nobody passes a mask): what fails there whatever the tensors are (an
        # einops pattern naming an axis its input lacks) is still reported (ide._engine_view).
        self.dropped_static = [rec for e in reachable([e for e in collected if e.id in dropped])
                               for rec in e.diags.values() if rec.static]
        self.compute_live()

    def _run_uncalled_def(self, path, key, module_env, classes, built, collected, own) -> None:
        """The generic run of one def no call reached (run_uncalled)."""
        method = classes.get(key)
        if method is None and not isinstance(getattr(module_env.get(key), "wrapped", module_env.get(key)),
                                             FunctionVal):
            return  # not bound (the module's code stops before it): nothing to run, or reuse
        heirs = _heirs_with_init(module_env, method[1], method[0], key.rsplit(".", 1)[-1]) if method else []
        # (a class its factories build runs on those instances, and a base class on its
        # heirs' instances, never reused: a new factory or subclass changes no unit it ran)
        reused = None if method and ((built and built.get(value_key(method[1]))) or heirs) else \
            self.reused_generic_run(path, key)  # nothing it ran changed (memo.py)
        if reused is not None:
            if reused[0] is not None:
                own[key] = reused[0]
            return
        started = self.generic_run_started(collected)
        fn = classes.get(key)
        self_value = None
        if fn is None:
            fn = module_env.get(key)
            fn = getattr(fn, "wrapped", fn)  # a def under a decorator of the program
            if not isinstance(fn, FunctionVal):
                return
        else:
            fn, cls = fn
            if fn is cls.lookup("__init__"):
                self._generic_instance(cls)
                self.generic_run_done(started, path, key, collected, None)
                return  # building the generic instance already ran it
            instances = (built or {}).get(value_key(cls))
            if instances and isinstance(fn, FunctionVal) and not _is_static(fn):
                self._run_with_instances(fn, instances, key, collected, own)
                return
            if heirs and not _is_static(fn):
                # A base class with no __init__ of its own (class Bottleneck(nn.Module)
                # with only forward; SEBottleneck(Bottleneck) builds the layers): its
                # methods run on the subclasses' generic instances, which have them.
                instances = [self._generic_instance(h) for h in heirs]
                self._run_with_instances(fn, instances, key, collected, own)
                return
            self_value = self._generic_instance(cls)
            if isinstance(fn, FunctionVal) and _is_static(fn):
                self_value = None
            worlds = self.flag_worlds(cls, self_value, module_env)
            if worlds:
                self._run_with_instances(fn, worlds, key, collected, own)
                return
        ways = self._method_flag_ways(fn) if self_value is not None else []
        if ways:
            self._run_with_instances(fn, [self_value], key, collected, own, ways)
            return
        args = []
        params = list(fn.params)
        if self_value is not None and params:
            args.append(self_value)
        try:
            inputs = self._generic_inputs(fn, args)
            start = len(collected)
            self.call_user(fn, args, inputs, generic=True)
            own[key] = collected[start:]
            self.generic_run_done(started, path, key, collected, start)
        except RecursionError:
            # Calls nested deeper than Python's stack (a recursive helper whose depth
            # is a symbol): this def's run is lost, not the other defs' (each frame's
            # `finally` put the engine's state back on the way out).
            self.log.append(f"budget:recursion: the run of {key} went deeper than the stack allows")

    def _uncalled_share(self, defs_after: int) -> int:
        return max(self.whole_budget // UNCALLED_SHARE, self.max_steps - self.steps - RESERVE_PER_DEF * defs_after)

    def replay_widened(self, key: str, collected: list) -> None:
        """The calls the file made of a forward escaped by `model.generate(...)`-like code
        (frames.escape_receiver), run again with each size of their tensors a symbol (same
        ranks, same dtypes, the rest as given): that code calls the forward with sizes not
        seen, and the layers it reaches show those dims as not known (ide: these runs widen
        the real runs' dims, never their rank, and give no diagnostics)."""
        done = set()
        calls: dict = {}
        for e in self.live.values():
            if e.id in self.real_ids:
                for k, call in e.__dict__.get("seen_calls", {}).get(key, {}).items():
                    calls.setdefault(k, call)
        for k in sorted(calls, key=repr):  # (one order, whichever run recorded them)
            fn, bound = calls[k]
            if len(done) >= MAX_REPLAYS:
                break
            unit = self.program.unit(fn.path, fn.unit_key)
            if unit is None or any(p.kind not in ("pos", "kwonly") for p in unit.params):
                continue
            widened = {name: _widened(name, v) for name, v in bound.items()}
            sig = tuple((name, value_key(v)) for name, v in widened.items())
            if sig in done:
                continue
            done.add(sig)
            start, roots = len(collected), len(self.roots)
            self.call_user(fn, [], widened, generic=True)
            # (its entry, memoized; or merged into the roots when impure)
            self.replay_ids.update(e.id for e in reachable(collected[start:] + self.roots[roots:]))

    def flag_worlds(self, cls, inst, module_env=None) -> list:
        """The instances of a class nobody builds, one per value of the bool flags its
        construction split on (generic.DefaultBool; at most MAX_FLAG_WORLD_FLAGS of them),
        or [] to use the one generic instance. Built with both values joined, `nn.Linear(dim,
        dim * mult * (2 if glu else 1))` has an unknown width, and `forward`'s `if not
        self.glu:` way would apply it; built once per value, each way meets its own layer."""
        if not isinstance(inst, Instance) or getattr(inst, "origin", None) is None:
            return []
        init = cls.lookup("__init__")
        if not isinstance(init, FunctionVal):
            return []
        params = {p.name for p in init.params}
        # Only flags the instance keeps (`self.glu = glu`, or an attribute of the flag's name:
        # after an `if` on it the attribute holds the joined values; or hands to a part it
        # builds, `FastAttention(causal=causal)`, which keeps it): its methods read them
        # again, and only a world per value keeps what they read consistent with what was
        # built (a flag used in __init__ alone is joined there at a fraction of the cost).
        kept = {v.name for v in inst.attrs.values() if isinstance(v, (DefaultBool, DefaultNone))} | set(inst.attrs) | \
            inst.origin.__dict__.get("passed_flags", set())
        split = inst.origin.__dict__.get("split_flags", ())
        if getattr(inst, "maybe_absent", None):
            # An attribute set on one way only (`if representation_size: self.pre_logits =
            # ...`): `hasattr(self, 'pre_logits')` in its methods reads the flag again.
            kept = kept | set(split)
        flags = sorted(n for n in split if n in params and n in kept)
        # A None default is built given as a size (its symbol), so only one the constructor
        # uses as a number (`2 * rel_pos_length - 1`); a tensor or a layer passed in
        # (`custom_freqs=None`, then `freqs = custom_freqs`) is not one.
        init_unit = self.program.unit(init.path, init.unit_key)
        numbers = number_parameters(init_unit) if init_unit is not None else frozenset()
        flags = [f for f in flags if init.defaults.get(f) is not None or f in numbers
                 or getattr(inst, "maybe_absent", None)]
        # Too many to try every combination (a model with a dozen switches): one world, the
        # model built with its default flags. It is a guess like the others; joined, the
        # flags would leave the layers that depend on them Unknown.
        defaults_only = len(flags) > MAX_FLAG_WORLD_FLAGS
        if defaults_only and not all(init.defaults.get(f) is None or isinstance(init.defaults.get(f), bool)
                                     for f in flags):
            flags, defaults_only = [], False
        # A block class it takes (`ResNet(block, layers)`): one world per class of the file
        # it could be (block_params), each a guess.
        blocks = block_choices(self.program, module_env, cls) if module_env is not None else None
        if not flags and blocks is None:
            return []
        # (its lists of numbers, `layers[0]`: any length, each an int)
        sizes = {n: alike(SOME_INT) for n in blocks[2]} if blocks else {}
        block_ways = [((blocks[0], b),) for b in blocks[1]] if blocks else [()]
        dead = inst.origin.__dict__.get("dead_flag_values", set())  # (a way that raises)
        worlds = []
        # (a None default: None, or given, a size the model is built with: `if
        # exists(rel_pos_length):` builds the relative position tables)
        if defaults_only:
            # The defaults, then each flag flipped alone (the first MAX_FLIPPED_FLAGS): a
            # flag that picks the layer kind (`klass = nn.Conv2d if freq else nn.Conv1d`)
            # changes the rank, and the defaults alone would show one rank as the only one.
            base = tuple(init.defaults[f] for f in flags)
            flag_values = [base] + [base[:i] + (not base[i],) + base[i + 1:]
                                    for i in range(min(len(flags), MAX_FLIPPED_FLAGS)) if isinstance(base[i], bool)]
        else:
            flag_values = itertools.product(*(((None, S.sym(f)) if init.defaults.get(f) is None else (False, True))
                                              for f in flags))
        for values, block in itertools.product(flag_values, block_ways):
            if any((f, v) in dead for f, v in zip(flags, values)):
                continue
            sink = self._collect[-1] if self._collect else []
            mark = len(sink)
            w = self.construct(cls, [], {**dict(zip(flags, values)), **dict(block), **(sizes if block else {})},
                               None, generic=True)
            if not isinstance(w, Instance):
                continue
            flipped = [f"{f}={v}" for f, v, d in zip(flags, values, base) if v != d] if defaults_only else []
            w.context_label = "with " + ", ".join(
                ([f"{flipped[0]} (the other flags at their defaults)"] if flipped else
                 ["its default flags"] if defaults_only else
                 [f"{f}={v}" if v is None or isinstance(v, bool) else f"{f} given" for f, v in zip(flags, values)]) +
                [f"{n}={b.qualname.rsplit('.', 1)[-1]}" for n, b in block])
            if block or defaults_only or any(init.defaults.get(f) is not v for f, v in zip(flags, values)):
                # A value the model is not built with by default is a guess, like a way of an
                # `if` on it: its shapes are shown, and the diagnostics in the class's own
                # methods are not (a def it calls fails alike for any caller: ide._engine_view).
                # (The defaults of every flag: what fails there fails as the model is built
                # by default, a warning; ide._engine_view.)
                w.guessed_world = "defaults" if defaults_only and not flipped else True
                self.guess_roots.update(e.id for e in sink[mark:])
                if defaults_only and not flipped:
                    self.default_roots.update(e.id for e in sink[mark:])
                self.guess_classes.add(cls.qualname)
            worlds.append(w)
        return worlds

    def _run_with_instances(self, fn, instances, key, collected, own, ways=None):
        """A method of a class the file's factories build (or of a base class its heirs
        build): run on each of those instances instead of the generic one (whose `block`,
        `layers` would be Unknown). Not kept for reuse: an edit of a factory or a new subclass
        changes the instances without touching this def."""
        start = len(collected)
        ways = (ways if ways is not None else self._method_flag_ways(fn)) or [({}, (), (), None)]
        # The default way on every instance; the other ways on the first one only (a class
        # built once per flag value would otherwise multiply its runs: LSH attention, 4 x 5).
        runs = [(inst, ways[0]) for inst in instances] + [(instances[0], w) for w in ways[1:]] if instances else []
        for inst, (flag, optional, always, flag_label) in runs:
            mark = len(collected)
            widening = False
            try:
                self.last_probe_uses = {}
                inputs = self._generic_inputs(fn, [inst], flag, optional + always)
                missing = [n for n in optional if n not in inputs]
                if any(not _unpacked(self.last_probe_uses.get((fn.qualname, n), ())) for n in missing):
                    continue  # (`device=None`, `seq_dim=None`: no tensor; the default way runs it as None)
                if missing:
                    # Given, no tensor but a tuple the body unpacks (`mem, cmem = memories`,
                    # the memories of a previous call): a value not known. The way shows no
                    # shape of its own; the lines it cannot evaluate are not claimed from the
                    # default way alone (ide._unit_facts).
                    inputs.update({n: UNKNOWN for n in missing})
                    widening = True
                self.call_user(fn, [inst], {**flag, **inputs}, generic=True)
            except Budget:
                break
            finally:
                if widening:
                    self.widen_roots.update(e.id for e in collected[mark:])
                guessed = getattr(inst, "guessed_world", False)
                if guessed or flag_label:
                    self.guess_roots.update(e.id for e in collected[mark:])
                if flag_label:  # (no diagnostics from the class's methods in that way: ide)
                    self.guess_classes.add(fn.qualname.rsplit(".", 1)[0])
                if guessed == "defaults" and not flag_label:
                    self.default_roots.update(e.id for e in collected[mark:])
                label = ", ".join(x for x in (getattr(inst, "context_label", None), flag_label) if x) or None
                for e in collected[mark:]:
                    e.context_label = label  # (ide.context_labels; None: named by its def)
        own[key] = collected[start:]

    def _method_flag_ways(self, fn) -> list:
        """The calls of a module's method nobody calls that differ by an optional argument
        the training loop may pass: a bool flag it tests (`forward(self, text,
        return_loss=False)`, `if not return_loss: return logits`) given the other value, or a
        None default it reads (`mask=None`, then `rearrange(mask, 'b n -> b () n')`, or `if
        exists(mask):`) given as a tensor (its shape decided from its uses, like a required
        input's). [(keywords, the optional input given, the optional inputs always given,
        label)]: the default way first, then one per such parameter (at most MAX_METHOD_WAYS:
        the flags tested first, then the None defaults tested, then those passed on, each in
        signature order); [] when it has none. As for a constructor's flags (flag_worlds), one run per value keeps what the
        code after the test reads consistent with the way it took; a way not the default is
        a guess (its shapes are shown, its diagnostics are not)."""
        if not isinstance(fn, FunctionVal) or _is_static(fn) or fn.unit_key.endswith(".__init__"):
            return []
        unit = self.program.unit(fn.path, fn.unit_key)
        if unit is None:
            return []
        uses = name_uses(unit)
        module_env = self.module_envs.get(fn.path, {})
        resolve = self._annotation_resolver(fn)
        ways, always = [], []  # ways: (rank: tested flags first, then tested None defaults, the rest last)
        for p in unit.params[1:]:
            if p.kind not in ("pos", "kwonly") or p.name not in fn.defaults or p.name not in uses:
                continue
            default, use = fn.defaults[p.name], uses[p.name]
            if isinstance(default, bool) and use.tested:
                ways.append((0, {p.name: not default}, (), f"with {p.name}={not default}"))
            elif default is None and not (use.asserted and not use.tested) and \
                    (p.annotation is None or tensor_from_annotation(p.annotation, resolve) is not None):
                # (an assert on it says when it is needed: `assert not (self.cross and
                # context is None)`; the default way is the one it admits)
                if use.tested or any(_may_test_none(module_env.get(f)) for f in use.passed_to):
                    # (`if exists(mask):`; `default(context, x)`, `self.attn(x, mask=mask)`)
                    ways.append((1 if use.tested else 2, {}, (p.name,), f"with {p.name} given"))
                else:
                    # Read with no test for None (`rearrange(mask, 'b n -> b () n')`): called
                    # with None, the body would raise; a caller passes a tensor.
                    always.append(p.name)
        if not ways:
            return [({}, (), tuple(always), None)] if always else []
        ways = sorted(ways, key=lambda w: w[0])[:MAX_METHOD_WAYS]
        return [({}, (), tuple(always), None)] + [(k, g, tuple(always), label) for _, k, g, label in ways]

    def _generic_inputs(self, fn, args, kwargs=None, given=()) -> dict:
        """Tensors for the inputs of a def no call reached (see generic.py), called with
        these arguments; `given`: parameters with a default that are inputs all the same."""
        unit = self.program.unit(fn.path, fn.unit_key)
        if unit is None:
            return {}
        resolve = self._annotation_resolver(fn)
        names, declared_given = [], {}
        plain = True  # the first input probed gets the plain names (B, T, C) unless one is declared before it
        for p in unit.params[len(args):]:
            if p.kind not in ("pos", "kwonly") or (p.name in fn.defaults and p.name not in given):
                continue
            if p.annotation is not None:
                declared = tensor_from_annotation(p.annotation, resolve)
                if declared is not None and declared.shape is not None and p.name in given:
                    declared_given[p.name] = declared  # `mask: Bool[Tensor, "B T"] = None`, given
                if declared is not None and declared.shape is not None and not names:
                    plain = False  # (`x: Float[Tensor, "b n dim"]`: `context` is then `context_T`)
                if declared is None or declared.shape is not None:
                    continue  # not a tensor, or its annotation already gives the shape
            names.append(p.name)
        return {**self.probe_inputs(fn, list(args), dict(kwargs or {}), names, generic=True, optional=given,
                                    plain_names=plain),
                **declared_given}

    def probe_inputs(self, fn, args, kwargs, names, generic=False, invented: set | None = None,
                     optional=(), plain_names=True) -> dict:
        """Symbolic tensors for the parameters `names` of a call: a first run binds each to
        a probe and records how the body uses it (generic.py); its entries are not results.
        `invented` learns the symbols made up for them (generic.decide_input)."""
        if not names:
            return {}
        probes = {n: RankProbe(None, probe=(fn.qualname, n)) for n in names}
        mark, sink = len(self.roots), []
        self._collect.append(sink)
        self.probing += 1
        self.probe_base.append(len(self.stack))
        # The probing run's writes to objects that existed before it (`self.inplanes =
        # planes` in `_make_layer`) are undone: the real run starts from the heap as it was.
        writes = branchheap.BranchWrites()
        self._branch_writes.append(writes)
        try:
            self.call_user(fn, args, {**kwargs, **probes}, generic=generic)
        except Budget:
            pass
        finally:
            self._collect.pop()
            self.probing -= 1
            self.probe_base.pop()
            self._branch_writes.pop()
            for obj, before in writes.before.values():
                branchheap.restore(obj, before)
        uses = gather_uses(self._recorded_run(sink, mark))
        self.last_probe_uses.update(uses)  # (read by _run_with_instances for an input no tensor)
        inputs, first = {}, plain_names
        made_dims: set = set()  # the dims made up for every input (renamed when one is optional)
        for n in names:
            made: set = set()
            t = decide_input(n, uses.get((fn.qualname, n), []), first,
                             context_notes(self, "batch", fn.qualname), lead=(fn.qualname, n),
                             invented=made)
            if invented is not None:
                invented |= made
            made_dims |= made
            if t is not None:
                inputs[n] = t
                # (the plain names once: a later input's dims are named after it)
                first = first and t.shape is None and not (t.tail and made)
        # With an optional input given, the dims made up for every input may be renamed
        # after those they meet (`x: Tensor[b, n, C]` with `einsum('b i d, b j d', x,
        # to_kv(context))` is `[b, n, dim]`), as the run without it would have named them.
        conventional: set = set()
        self._rank_open_inputs(fn, args, kwargs, inputs, generic, invented,
                               made_dims if any(n in inputs for n in optional) else frozenset(), made_dims,
                               conventional)
        others = [n for n in names if n not in conventional]
        if conventional and others:
            # The others are decided again as if the ranked ones were annotated so (their
            # contract, written back, reads back the same): `mask[:, None, None, :]` added to
            # scores of a known rank has a rank then.
            given = {n: inputs[n] for n in conventional}
            inputs = {**given, **self.probe_inputs(fn, args, {**kwargs, **given}, others, generic, invented,
                                                   optional, plain_names=False)}
            return inputs
        open_ = [n for n in names if n in inputs and inputs[n].shape is None]
        ranked = {n: t for n, t in inputs.items() if t.shape is not None}
        if open_ and ranked:
            # An input only ever joined to another one (`torch.cat([self.up(x), skip], 1)`):
            # its probe met a probe, which admits any rank; with the ranked ones given, the
            # op tells its rank and the dims it shares.
            # The plain names (`C`) unless the ranked ones made up the same: an annotation
            # of the ranked ones reads back alike (a lone generic input takes plain names).
            made_again: set = set()
            given = {**kwargs, **ranked}
            self.joining_probes += 1
            try:
                again = self.probe_inputs(fn, args, given, open_, generic, made_again, optional)
                if made_again & made_dims:
                    made_again = set()
                    again = self.probe_inputs(fn, args, given, open_, generic, made_again, optional,
                                              plain_names=False)
            finally:
                self.joining_probes -= 1
            if invented is not None:
                invented |= made_again
            inputs.update({n: t for n, t in again.items() if t.shape is not None})
        return inputs

    def _rank_open_inputs(self, fn, args, kwargs, inputs, generic, invented, renamable=frozenset(),
                          made_up=frozenset(), conventional=None) -> None:
        """Inputs decided as `Tensor[..., tail]` whose rank a later op fixes (an einsum or a
        rearrange after the Linear that gave the tail): run the body with them and bind each
        to the rank every op that needed one agreed on (dispatch._note_lead_count); again
        while that ranks more (the next einsum reads the first one's result). A run that
        ranks nothing is the context's own run: the call that follows finds it memoized."""
        made: set = set()  # the leading dims named here
        self._rank_by_later_ops(fn, args, kwargs, inputs, generic, made, made_up, conventional)
        if invented is not None:
            invented |= made
        if not (made or renamable):
            return
        # A dim made up here that the body broadcasts with another input's (the einsum's
        # batch letter) is named after it: `key: Tensor[B, batch, dim]`, not `[B, T, dim]`;
        # so is one of an optional input given (`mask: Tensor[B, T]`, not `[mask_B, mask_T]`).
        entry = self._deciding_run(fn, args, kwargs, inputs, generic)
        # (the conditions of the defs it calls too: `attn(x, mask=mask)` broadcasts them there)
        same = broadcast_renaming(list(inputs.items()), [c for e in reachable([entry])
                                                         for c, _ in getattr(e, "preconditions", ())],
                                  made | renamable) if entry is not None else {}
        for n, t in inputs.items():
            if same and t.shape is not None and any(S.free_symbols(d) & same.keys() for d in t.shape):
                inputs[n] = TensorValue(tuple(S.substitute(d, same) for d in t.shape), t.dtype)

    def _rank_by_later_ops(self, fn, args, kwargs, inputs, generic, made, made_up=frozenset(),
                           conventional=None) -> None:
        """The runs of _rank_open_inputs, each ranking the open inputs an op fixed. An input
        whose last dims a layer gave (not `made_up`), read by position but never pinned, is
        ranked by the sequence convention (generic.conventional_lead_count), unless that
        makes the body fail where it did not."""
        for _ in range(MAX_RANKING_RUNS):
            open_ = [n for n, t in inputs.items()
                     if t.shape is None and t.tail is not None and t.lead == (fn.qualname, n)]
            if not open_:
                break
            entry = self._deciding_run(fn, args, kwargs, inputs, generic)
            if entry is None:
                return
            uses = gather_uses([entry])
            ranked, guessed = False, {}
            for n in open_:
                count = lead_count(uses.get((fn.qualname, n), []))
                if count is None and not any(S.free_symbols(d) & made_up for d in inputs[n].tail):
                    count = conventional_lead_count(uses.get((fn.qualname, n), []))
                    if count is not None:
                        guessed[n] = inputs[n]
                if count is not None:
                    inputs[n] = ranked_from_tail(n, inputs[n].tail, count, made, made_up)
                    ranked = True
            if guessed:
                after = self._deciding_run(fn, args, kwargs, inputs, generic)
                broken = after is None or _leads_pinned(after, inputs, guessed, made | set(made_up)) or \
                    not self._errors_not_from_rank(fn, args, kwargs, inputs, generic, guessed, entry, after)
                if not broken and _needs_unit_hyperparameter(after, entry, inputs, made | set(made_up)):
                    # (the inputs take one leading dim fewer or more when that fits)
                    broken = self._other_lead_count(fn, args, kwargs, inputs, generic, guessed, entry, made,
                                                    made_up) is None
                if broken:
                    inputs.update(guessed)  # the convention breaks the body: keep them open
                    ranked = any(inputs[n].shape is not None for n in open_)
                elif conventional is not None:
                    conventional.update(guessed)
            if not ranked:
                break

    def _other_lead_count(self, fn, args, kwargs, inputs, generic, guessed, before, made, made_up):
        """The sequence convention made the body broadcast a hyperparameter against another
        (`norm(x) * scale[:, None, :]` with `scale` a chunk of `linear(emb)` along the made-up
        `T`: `dim == 2*dim or dim == 1`): the guessed inputs with one leading dim fewer or
        more, when that run asks no such thing and fails nowhere new; their run (inputs
        updated), or None (inputs unchanged)."""
        for count in (SEQUENCE_LEADS - 1, SEQUENCE_LEADS + 1):
            named: set = set()
            other = {n: ranked_from_tail(n, t.tail, count, named, made_up) for n, t in guessed.items()}
            run = self._deciding_run(fn, args, kwargs, {**inputs, **other}, generic)
            if run is None or _error_keys(run) - _error_keys(before) or \
                    _needs_unit_hyperparameter(run, before, {**inputs, **other}, made | set(made_up) | named):
                continue
            inputs.update(other)
            made |= named
            return run
        return None

    def _errors_not_from_rank(self, fn, args, kwargs, inputs, generic, guessed, before, after) -> bool:
        """Does every error the sequence convention brought (`after`, not in the run with the
        inputs open) come at other numbers of leading dims too? Then it is no artefact of
        the guessed rank (`nn.Linear(dim + 1, dim)` after the attention fails at any rank)."""
        new = _error_keys(after) - _error_keys(before)
        if not new:
            return True
        for count in (SEQUENCE_LEADS - 1, SEQUENCE_LEADS + 1):
            other = {**inputs, **{n: ranked_from_tail(n, t.tail, count) for n, t in guessed.items()}}
            run = self._deciding_run(fn, args, kwargs, other, generic)
            if run is None or not new <= _error_keys(run):
                return False
        return True

    def _deciding_run(self, fn, args, kwargs, inputs, generic):
        """One run of the body with these inputs, for deciding them (its entries are no
        results: _recorded_run); its top entry, or None when the budget ran out."""
        mark, sink = len(self.roots), []
        self._collect.append(sink)
        self.deciding_base.append(len(self.stack))
        try:
            self.call_user(fn, list(args), {**kwargs, **inputs}, generic=generic)
        except Budget:
            return None
        finally:
            self._collect.pop()
            self.deciding_base.pop()
        self._recorded_run(sink, mark)
        return self._last_call_entry

    def _recorded_run(self, sink, mark) -> list:
        """The entries a run made for deciding inputs (not results of their own): taken
        out of the roots and recorded as what the decision came from (memo.py)."""
        found = sink + self.roots[mark:]
        del self.roots[mark:]
        if self.probe_record is not None:
            self.probe_record.extend(found)
        return found

    def _classes_by_method(self, env):
        out = {}
        for v in env.values():
            if isinstance(v, ClassVal):
                for name, m in v.attrs.items():
                    m = getattr(m, "wrapped", m)  # a def under a decorator of the program
                    if isinstance(m, FunctionVal):
                        out[m.unit_key] = (m, v)
        return out

    def _generic_instance(self, cls: ClassVal):
        """An instance built by running __init__ with its defaults (Unknown otherwise);
        memoized like any constructor call."""
        return self.construct(cls, [], {}, None, generic=True)


def _leads_pinned(entry, inputs, guessed, made_up) -> bool:
    """Does the body equate a dim the sequence convention made up with a real one (`assert
    x.shape[1] == x.shape[2]` makes x_T the feature dim)? Then the input is not a batch of
    sequences of those features, and the convention is not taken."""
    conds = [c for e in reachable([entry]) for c, _ in getattr(e, "preconditions", ())]
    same = broadcast_renaming(list(inputs.items()), conds, set(made_up))
    leads = {name for n in guessed for d in (inputs[n].shape or ())[:-len(guessed[n].tail)]
             for name in S.free_symbols(d)}
    return any(k in leads and not (S.free_symbols(v) <= set(made_up)) for k, v in same.items())


def _needs_unit_hyperparameter(entry, before, inputs, made_up) -> bool:
    """Does this run (not `before`) broadcast two dims that differ for every value of the
    hyperparameters they are made of (`dim` against `2*dim`, no dim made up for an input in
    either), so that it holds only when one of them is 1? No model is built so: the ranks
    the inputs were given are wrong."""
    made = set(made_up)
    for t in inputs.values():
        made |= {n for d in (t.shape or ()) for n in S.free_symbols(d) if not _is_hyperparameter_dim(t, d)}
    seen = {c for e in reachable([before]) for c, _ in getattr(e, "preconditions", ())}
    for e in reachable([entry]):
        for c, _ in getattr(e, "preconditions", ()):
            if c in seen:
                continue
            pair = _broadcast_pair(c)
            if pair is None or any(S.free_symbols(d) & made for d in pair):
                continue
            names = sorted(set().union(*(S.free_symbols(d) for d in pair)))
            point = {n: 1009 + 97 * i for i, n in enumerate(names)}
            a, b = (S.substitute(d, point) for d in pair)
            if isinstance(a, int) and isinstance(b, int) and a != b and names:
                return True
    return False


def _is_hyperparameter_dim(t, d) -> bool:
    """A dim of an input given by a layer (its last dims, `Tensor[..., dim]`), not made up."""
    return t.shape is not None and bool(t.shape) and d is t.shape[-1] and S.symbol_name(d) is not None \
        and not (S.symbol_name(d) or "").endswith(("_C", "_T", "_B", "_N"))


def _broadcast_pair(c):
    """(a, b) of a broadcasting condition `a == b or a == 1 or b == 1`, else None."""
    if not isinstance(c, S.Cond) or c.op != "or":
        return None
    pairs = [x.args for x in c.args if isinstance(x, S.Cond) and x.op == "eq" and 1 not in x.args]
    ones = [x for x in c.args if isinstance(x, S.Cond) and x.op == "eq" and 1 in x.args]
    if len(pairs) != 1 or len(ones) + 1 != len(c.args):
        return None
    return pairs[0]


def _error_keys(entry) -> set:
    """Where a run and the calls it made failed: (unit, node, code) of each error."""
    return {(d.unit, d.nid, d.code) for e in reachable([entry]) for d in e.diags.values() if d.severity == "error"}


def _may_test_none(f) -> bool:
    """Could the callee an optional argument is passed to handle None (a def or class of the
    program, a part of the model, a value not known here), as an op cannot?"""
    f = getattr(f, "wrapped", f)
    return f is None or isinstance(f, (FunctionVal, ClassVal))


MAX_FACTORY_INSTANCES = 4
MAX_RANKING_RUNS = 3  # runs that rank open inputs (_rank_open_inputs), one per einsum chain link
MAX_FLAG_WORLD_FLAGS = 2  # flags split on at construction: 2**2 instances at most
MAX_FLIPPED_FLAGS = 4  # past that many: the defaults, and each of the first 4 flipped alone
MAX_METHOD_WAYS = 4  # optional arguments of a method nobody calls, given one at a time: 1 + 4 runs


def _heirs_with_init(module_env, cls, fn, name) -> list:
    """The file's subclasses of `cls` that inherit its method `name` and build their own
    attributes, when `cls` itself has no __init__ in the program (at most
    MAX_FACTORY_INSTANCES, in the file's order); [] otherwise."""
    if cls.lookup("__init__") is not None:
        return []
    out = []
    for v in module_env.values():
        if (isinstance(v, ClassVal) and v is not cls and any(c is cls for c in v.mro()) and v.lookup(name) is fn
                and isinstance(v.lookup("__init__"), FunctionVal) and all(v is not o for o in out)):
            out.append(v)
    return out[:MAX_FACTORY_INSTANCES]


def _unpacked(uses) -> bool:
    return any(kind == "items" for kind, _ in uses)


# Seen calls of one escaped forward run again with symbolic sizes (replay_widened)
MAX_REPLAYS = 4


def _widened(name: str, v):
    """A tensor of known sizes as one of the same rank and dtype whose sizes are symbols
    named after the parameter (`input_ids_0`, `input_ids_1`); anything else as it is."""
    if isinstance(v, TensorValue) and v.shape is not None and v.tail is None and v.values is None:
        return TensorValue(tuple(S.sym(f"{name}_{i}") for i in range(len(v.shape))), v.dtype)
    return v


def _reached_by_others(own: dict, path: str, runs: dict) -> set:
    """Ids of the generic entries of defs that another model's method also reaches in its
    generic run (`Mlp.forward` called by `Block.forward`): that call gives them a context of
    their use, and their own context would only blur it. A plain function reaching them (a
    test or demo function that builds the model with its own sizes) does not: those are
    made-up values, and the model's own symbolic context stays beside them. Mutual reach
    keeps both."""
    reach = {}
    for key, entries in own.items():
        run = runs.get((path, key))
        if run is None or run.own is not entries:
            reach[key] = _units_reached(entries, path)
        else:  # a generic run kept across edits: what it reaches is kept with it
            if run.units is None:
                run.units = _units_reached(entries, path)
            reach[key] = run.units
    reached_by: dict = {}  # unit key -> the methods whose generic run reaches it
    for other, units in reach.items():
        if "." in other:
            for unit in units:
                reached_by.setdefault(unit, []).append(other)
    dropped: set = set()
    for key, entries in own.items():
        if any(other != key and other not in reach[key] for other in reached_by.get(key, ())):
            dropped.update(e.id for e in entries)
    return dropped


def _units_reached(entries, path) -> set:
    # Decided reach only: a call made on a way the caller could not decide may never run,
    # and what fails in the callee is no diagnostic there (frames.decided); the callee's own
    # generic run is then the one that can report it.
    return {k for e in decided(entries) for p, k in e.units if p == path}
