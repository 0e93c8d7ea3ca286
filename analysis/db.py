"""The analysis host: the files it knows, their parse trees, IR units and memoized results.

The server (or the CLI) owns one host, feeds it file texts and asks for results:

    host = AnalysisHost()
    host.set_file("/abs/model.py", text)
    result = host.analyze("/abs/model.py")      # -> FileAnalysis
    host.query_log                                # what the last analyses recomputed

Pipeline of one `analyze`: re-parse the top-level statements an edit touched (syntax), lower
only the segments and defs whose text changed (lower, cached per segment and per def), run
the module's top level with memoized calls (infer: an entry is reused while its dependencies
give the same results), then turn the live entries into plain results (ide).

Not thread-safe: use it from one thread (parso trees mutate, z3 contexts are not shared).
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from . import diskcache, solver
from . import ops  # noqa: F401 - registers every op spec
from .frames import MAX_STEPS, Budget, start_budget, stop_run
from .infer import Engine
from .libraries import LibraryResolver, default_paths
from .results import FileAnalysis
from .syntax import SyntaxTree

_KEEP_RUNS = 3  # memo entries unused for this many runs are dropped


@dataclass(frozen=True)
class EngineSettings:
    solver_timeout_ms: int = 500
    annotation_style: str = "jaxtyping"  # "jaxtyping" | "comment" | "assert"
    max_steps: int = MAX_STEPS  # work budget of one analysis (frames.MAX_STEPS)
    # Where installed libraries are found (analysis.libraries): None is the import path of
    # the interpreter running the analysis; () analyses no library.
    library_paths: tuple | None = None
    # Parsed and lowered files kept in the user's cache folder (analysis.diskcache): the
    # server and the CLI turn it on; off, nothing is read from or written to disk.
    disk_cache: bool = False


class _FileState:
    def __init__(self):
        self.text: str | None = None
        self.tree = SyntaxTree()
        self.units: dict = {}
        self.lower_cache: dict = {}
        self.units_text: str | None = None


class AnalysisHost:
    def __init__(self, settings: EngineSettings | None = None, workspace_root: str | None = None):
        self.settings = settings or EngineSettings()
        self.workspace_root = workspace_root
        self.files: dict[str, _FileState] = {}
        self.memo: dict = {}
        self.run_id = 0
        self.query_log: list[str] = []
        self._results: dict = {}  # path -> (revision key, FileAnalysis)
        self._fix_cache: dict = {}
        self._jedi_cache: dict = {}
        self.engines: dict = {}  # path -> the engine of its latest analysis (analysis.summary reads it)
        self.fact_cache: dict = {}  # (path, unit key) -> (signature, [ShapeFact]) (see ide)
        # Work results leave for later (their facts: ide.build_file_analysis), done when first
        # asked for, one at a time: a server thread may read facts while the analysis
        # thread goes on. The latest is kept for settle() (the benchmarks time it).
        self._deferred = None
        self._deferred_lock = threading.RLock()
        # (path, unit key) of every unit whose code changed (or that appeared or went away)
        # since the last analysis: what memoized results may depend on (memo._unchanged).
        self.changed_units: set = set()
        # (path, unit key) -> what the generic run of a def no call reached made in the last
        # analysis (memo.reused_generic_run)
        self.generic_runs: dict = {}
        self.memo_epoch = 0  # counts memo entries replaced or dropped other than by age
        self.units_version = 0  # counts changes of any file's units (see _analyze)
        self._revision = 0
        paths = self.settings.library_paths
        self.libraries = LibraryResolver(default_paths() if paths is None else paths,
                                         (workspace_root,) if workspace_root else ())
        self.unit_cache = diskcache.UnitCache(workspace=workspace_root) if self.settings.disk_cache else None

    # -- files ----------------------------------------------------------------------------
    def set_file(self, path: str, text: str) -> None:
        state = self.files.setdefault(path, _FileState())
        if state.text != text:
            state.text = text
            self._revision += 1

    def remove_file(self, path: str) -> None:
        state = self.files.pop(path, None)
        self.engines.pop(path, None)
        if state is not None:
            self.changed_units.update((path, key) for key in state.units)
            self.units_version += 1
            self._revision += 1

    def has_file(self, path: str) -> bool:
        return path in self.files

    def text(self, path: str) -> str | None:
        state = self.files.get(path)
        return state.text if state else None

    # -- the program as the engine sees it --------------------------------------------------
    def units(self, path: str) -> dict:
        state = self.files.get(path)
        if state is None:
            if not self._load_from_disk(path):
                return {}
            state = self.files[path]
        if state.units_text != state.text:
            before = state.units
            try:
                state.units = diskcache.lowered_units(self.unit_cache, state, self.query_log,
                                                      lambda: self.libraries.distribution(path))
            except RecursionError:
                state.units = {}
            state.units_text = state.text
            for key in before.keys() | state.units.keys():
                old, new = before.get(key), state.units.get(key)
                if old is None or new is None or old.digest != new.digest:
                    self.changed_units.add((path, key))
                    self.units_version += 1
        return state.units

    def lines(self, path: str) -> list:
        """The file's lines with their ends, split by LSP's rule."""
        self.units(path)
        state = self.files.get(path)
        return state.tree.lines or [] if state else []

    def unit(self, path: str, key: str):
        return self.units(path).get(key)

    def resolve_module(self, from_path: str, dotted: str, level: int) -> str | None:
        """A workspace file for an import, or None (external or not found)."""
        if not dotted and level == 0:
            return None
        base_dirs = []
        if level > 0:
            d = os.path.dirname(from_path)
            for _ in range(level - 1):
                d = os.path.dirname(d)
            base_dirs.append(d)
        else:
            base_dirs.append(os.path.dirname(from_path))
            if self.workspace_root:
                base_dirs.append(self.workspace_root)
        rel = dotted.replace(".", os.sep) if dotted else ""
        for d in base_dirs:
            for cand in (os.path.join(d, rel + ".py"), os.path.join(d, rel, "__init__.py")):
                cand = os.path.normpath(cand)
                if cand == from_path:
                    continue
                if cand in self.files or os.path.isfile(cand):
                    return cand
        if level == 0 and dotted:
            # An installed library first: asking jedi costs a subprocess start (and an
            # import inside a library never means a workspace file: jedi is not asked).
            found = self.libraries.resolve(dotted)
            if found is None and not self.is_library(from_path):
                found = self._resolve_with_jedi(from_path, dotted)
            return found
        return None

    def is_library(self, path: str) -> bool:
        """A file of an installed library (analysed lazily, never reported on)."""
        return self.libraries.owns(path)

    def _resolve_with_jedi(self, from_path: str, dotted: str) -> str | None:
        """jedi's import resolution (sys.path of the project, a `src/` layout, namespace
        packages), kept only when it lands inside the workspace: installed libraries are
        not analysed. Cached per (folder, module)."""
        key = (os.path.dirname(from_path), dotted)
        if key in self._jedi_cache:
            return self._jedi_cache[key]
        found = None
        root = self.workspace_root or os.path.dirname(from_path)
        try:
            import jedi

            extra = [p for p in (os.path.join(root, "src"),) if os.path.isdir(p)]
            project = jedi.Project(root, added_sys_path=extra)
            code = f"import {dotted}\n"
            script = jedi.Script(code=code, path=from_path, project=project)
            for name in script.goto(1, len(code) - 2):
                path = str(name.module_path or "")
                if path.endswith(".py") and os.path.normpath(path).startswith(os.path.normpath(root) + os.sep):
                    found = os.path.normpath(path)
                    break
        except Exception:  # noqa: BLE001 - resolution is best effort; unresolved means Unknown
            found = None
        self._jedi_cache[key] = found
        return found

    def _load_from_disk(self, path: str) -> bool:
        # regular files only, bounded, no link out of the workspace (disk.py; skips logged)
        from .disk import MAX_SOURCE_BYTES, read_source_bytes

        try:
            data = read_source_bytes(path, MAX_SOURCE_BYTES, [self.workspace_root] if self.workspace_root else None)
        except OSError:
            return False
        text = data.decode("utf-8", errors="replace")
        self.set_file(path, text.replace("\r\n", "\n").replace("\r", "\n"))  # as open() in text mode did
        return True

    # -- analysis -------------------------------------------------------------------------
    def analyze(self, path: str, cancel=None) -> FileAnalysis:
        """Shapes and diagnostics of one file (a file the host does not know: empty).

        `cancel`: a zero-argument callable the engine polls every few hundred steps; when
        it returns True, `analysis.frames.Cancelled` propagates out of here. The memo keeps
        only complete results, so a later `analyze` equals a from-scratch analysis."""
        if path not in self.files:
            return FileAnalysis(path)
        cached = self._results.get(path)
        if cached is not None and cached[0] == self._revision:
            return cached[1]
        try:
            result = self._analyze(path, cancel)
        except Exception as exc:  # noqa: BLE001 - an engine bug must not take the editor down
            self.query_log.append(f"error:{type(exc).__name__}: {exc}")
            self.memo.clear()  # whatever the failed run left behind is not trusted
            self.generic_runs.clear()
            self.memo_epoch += 1
            result = FileAnalysis(path)
        self._results[path] = (self._revision, result)
        if self.unit_cache is not None:
            self.unit_cache.write_pending()  # in the background, now that the result is ready
        return result

    # -- work left for later ----------------------------------------------------------------
    def defer(self, make):
        """`make()` once, when first asked for; returns the asker. What `make` reads must
        not change after this call (no later edit or analysis may change it)."""
        box: list = []
        todo = [make]  # dropped once made: what it read (an engine, a parse) is let go

        def get():
            if not box:
                with self._deferred_lock:
                    if not box:
                        try:
                            box.append(todo.pop()())
                        except Exception as exc:  # noqa: BLE001 - an engine bug: no facts, never a crash
                            self.query_log.append(f"error:{type(exc).__name__}: {exc}")
                            box.append([])
            return box[0]

        self._deferred = get
        return get

    def settle(self) -> None:
        """Do what the latest analysis left for later, now."""
        get, self._deferred = self._deferred, None
        if get is not None:
            get()

    def _analyze(self, path: str, cancel=None) -> FileAnalysis:
        from .ide import build_file_analysis

        self.query_log.clear()  # the log says what this analysis recomputed (and stays small)
        solver.SOLVE_LOG.clear()
        # Every file whose text changed is lowered now, so `changed_units` is complete
        # before any memoized result is judged unchanged.
        for other, state in list(self.files.items()):
            if other == path or (state.units_text is not None and state.units_text != state.text):
                self.units(other)
        previous = self.engines.get(path)
        if previous is not None and previous.units_version == self.units_version and not previous.budget_hit:
            # No unit of any file changed since the last run of this file (a comment, blank
            # lines): a run would be the same run. Its results are placed on the new lines.
            self.changed_units.clear()
            return build_file_analysis(self, previous, path)
        self.run_id += 1
        engine = Engine(self, self.memo, self.run_id, self.query_log,
                        self.settings.solver_timeout_ms)
        start_budget(engine, self.settings.max_steps, cancel)
        try:
            try:
                engine.run_module(path, as_main=True)
                engine.run_uncalled(path)
            except (Budget, RecursionError) as exc:  # outside a module statement: show what ran
                if isinstance(exc, RecursionError):
                    stop_run(engine, "recursion")
                engine.compute_live()
            engine.units_version = self.units_version  # what it ran on (files it loaded too)
            self.engines[path] = engine
            self.query_log.extend(f"solve:{c}" for c in solver.SOLVE_LOG)
            self._prune()
            return build_file_analysis(self, engine, path)
        finally:
            self.changed_units.clear()

    def _prune(self):
        cutoff = self.run_id - _KEEP_RUNS
        for key in [k for k, e in self.memo.items() if e.last_run < cutoff or e.stale]:
            del self.memo[key]

    def clear_log(self) -> None:
        self.query_log.clear()

    def verified_fixes(self, path: str, diagnostic) -> tuple:
        """The diagnostic's repairs that the engine confirms: with the edit applied, that
        error is gone. Costs two incremental analyses per repair (with the edit, and back),
        so it runs when a client asks for code actions (and in the CLI), not on every edit;
        answers are cached per text."""
        out = []
        for fix in diagnostic.fixes:
            key = (path, self.text(path), diagnostic.span, diagnostic.code, fix)
            ok = self._fix_cache.get(key)
            if ok is None:
                ok = self._fix_cache[key] = _fix_holds(self, path, diagnostic, fix)
                if len(self._fix_cache) > 256:
                    self._fix_cache.pop(next(iter(self._fix_cache)))
            if ok:
                out.append(fix)
        return tuple(out)


def warm_up() -> None:
    """Load what the first analysis would load (the solver, lazily imported engine modules)
    by analysing a few lines: a server does it at start, before any file opens."""
    solver.warm_up()
    host = AnalysisHost()
    path = os.path.join(os.sep, "shapesense-warm-up", "warm_up.py")
    host.set_file(path, "import torch\nimport torch.nn as nn\n"
                        "x = nn.Linear(3, 4)(torch.randn(2, 3)).view(-1, 2)\n")
    host.analyze(path)


def _fix_holds(host: AnalysisHost, path: str, diagnostic, fix) -> bool:
    """Apply the fix to the text and analyse it in this host, then put the text back: only
    what the edit touches is recomputed (a fresh host would redo the whole file, seconds on
    10,000 lines), and incremental results equal fresh ones. The error must be gone."""
    from .ide import apply_edits

    old = host.text(path) or ""
    host.set_file(path, apply_edits(old, fix.edits))
    try:
        after = host.analyze(path)
    finally:
        host.set_file(path, old)
    return not any(x.span.start[0] == diagnostic.span.start[0] and x.code == diagnostic.code
                   and x.severity == "error" for x in after.diagnostics)