"""The one analysis thread and the AnalysisHost it owns.

Every call into the host happens on this thread: parso trees mutate in place, jedi is
not thread-safe and z3 contexts cannot be shared. The event loop only queues work here.
File texts written from the loop (open buffers, saved or watched files) are buffered and
drained at the start of the next job, so every analysis sees the newest text of every
other file without the loop ever touching the host. The engine itself is imported on
this thread, on first use, so `initialize` is answered without waiting for it.

A background analysis gives way: it polls a cancel check (the engine's `cancel=` hook)
that fires when its text was superseded, when a request waits for another file (or for a
job through `run`), after a 100 ms turn when another file's run is queued, or when it
overran its time budget (counted over its turns); the scheduler re-queues it. Parsing
does not poll: there a watchdog (interrupt.py) stops it from outside, for a request or
for a much smaller file, and the parse state of that one file is rebuilt.
"""
from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import os
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from shapesense.analysis.results import FileAnalysis

from .documents import LineIndex
from .heap import HeapTrimmer
from .interrupt import Interrupted, Watchdog

_REMOVED = object()


@dataclass(frozen=True)
class Snapshot:
    """The text of one document at one version, as handed to the engine."""

    uri: str
    path: str
    version: int
    index: LineIndex
    revision: int = 0  # the store's, unique across reopenings (0: not tracked)


@dataclass(frozen=True)
class Outcome:
    snapshot: Snapshot
    analysis: FileAnalysis | None  # None: the engine failed on this text (logged), or cancelled
    generation: int  # the host's generation the analysis was computed at
    cancelled: str | None = None  # "superseded" | "preempted" | "budget": no analysis
    notes: tuple[str, ...] = ()  # shown to the user with the results (limits hit)
    logs: tuple[str, ...] = ()  # written to the client's log only
    stale: bool = False  # an older analysis placed on `snapshot` (see stale.py)
    changed: tuple[int, int] | None = None  # stale: snapshot lines [lo, hi) it says nothing about


@dataclass(frozen=True)
class Limits:
    """Per-analysis limits (from the user's settings)."""

    budget_ms: int | None = None  # wall time of one analysis
    max_bytes: int | None = None  # text beyond it is not analysed
    solver_budget_ms: int | None = None  # Z3 time of one analysis


class AnalysisWorker:
    def __init__(
        self,
        settings: dict[str, Any],
        workspace_root: str | None,
        log_error: Callable[[str], None],
        host_factory: Callable[..., Any] | None = None,
    ):
        """`settings`: EngineSettings fields; `host_factory(EngineSettings, root)` builds
        the host (default: the real AnalysisHost)."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shapesense-analysis")
        self._factory = host_factory
        self._settings = settings
        self._root = workspace_root
        self._log_error = log_error
        self._lock = threading.Lock()
        self._incoming: dict[str, object] = {}  # path -> text or _REMOVED, from the loop
        self._reset_pending = False
        self.closed = False
        # Requests waiting for the analysis thread: paths whose analysis a request awaits,
        # and the number of `run` jobs queued. A background analysis of another file gives way.
        self._urgent_paths: set[str] = set()
        self._urgent_runs = 0
        self._queued: dict[str, int] = {}  # path -> text size of its queued analysis
        # path -> (revision, seconds): time spent on a text over runs that gave way, so the
        # budget counts all of them
        self._spent: dict[str, tuple[int, float]] = {}
        self.limits = Limits()
        self.watchdog = Watchdog(parsing_now)
        # The analysis thread holds the GIL while it works; the event loop gets it back at
        # each switch interval. 1 ms instead of 5 lets a hover through that much sooner
        # (a switch only happens when the loop thread has something to do).
        sys.setswitchinterval(0.001)
        # Worker-thread state.
        self._host: Any = None  # the AnalysisHost
        self._texts: dict[str, str] = {}
        self._analysed: set[str] = set()  # paths analysed at least once
        self._heap = HeapTrimmer()
        self.generation = 0  # bumped whenever the host's inputs change

    # -- called from the event loop ------------------------------------------------
    def set_file(self, path: str, text: str) -> None:
        with self._lock:
            self._incoming[path] = text

    def remove_file(self, path: str) -> None:
        with self._lock:
            self._incoming[path] = _REMOVED

    @property
    def has_pending_input(self) -> bool:
        """Texts or settings queued for the host that no job has applied yet."""
        with self._lock:
            return bool(self._incoming) or self._reset_pending

    def reconfigure(self, settings: dict[str, Any], workspace_root: str | None = None) -> None:
        """A new host with these settings is built before the next job."""
        with self._lock:
            if settings != self._settings or (workspace_root and workspace_root != self._root):
                self._settings = settings
                self._root = workspace_root or self._root
                self._reset_pending = True

    async def run(self, fn: Callable, *args):
        """Run `fn(host, *args)` on the analysis thread after draining pending inputs;
        None once shut down. A request waits for it: background analyses give way."""
        if self.closed:
            return None
        with self._lock:
            self._urgent_runs += 1
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, fn, args, True)

    async def analyze(self, snapshot: Snapshot, is_current: Callable[[], bool] | None = None) -> Outcome | None:
        """Analyse `snapshot` in the background. When `is_current()` turns false (before
        or, with an engine that takes `cancel=`, during the run), when a request waits for
        another file, or past the time budget, the Outcome says `cancelled` instead."""
        if self.closed:
            return None
        with self._lock:
            self._queued[snapshot.path] = len(snapshot.index.text)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, self._analyze, (snapshot, is_current), False)

    def hurry(self, path: str) -> None:
        """A request waits for an analysis of `path`: others give way until it finished."""
        with self._lock:
            self._urgent_paths.add(path)

    def unhurry(self, path: str) -> None:
        with self._lock:
            self._urgent_paths.discard(path)

    def _gives_way(self, path: str, size: int, started: float, hard: bool = False) -> bool:
        """Should the running analysis of `path` (`size` characters, started at `started`)
        stop for other work? For a request waiting on another file, yes (but a run a
        request waits for is never stopped for another such run: no ping-pong). After a
        time slice, also for any other file's queued run unless that one is over four
        times bigger (it waits): turns, so no file holds up the others for long. A stop
        from outside (`hard`: the run is parsing and cannot stop by itself, and what it
        parsed is lost) is made for a turn only when the waiting file is under a quarter
        of its size, so the smaller always goes first and two alike cannot keep undoing
        each other's parse."""
        with self._lock:
            hurried = tuple(self._urgent_paths)
            if path in hurried:
                return False
            if self._urgent_runs > 0 or hurried:
                return True
            if time.monotonic() - started < SLICE_S:
                return False
            others = [n for p, n in self._queued.items() if p != path]
            if hard:
                return any(n * 4 < size for n in others)
            return any(n <= size * 4 for n in others)  # never for a file over 4x bigger

    def shutdown(self) -> None:
        self.closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- on the analysis thread --------------------------------------------------
    def _call(self, fn: Callable, args: tuple, urgent: bool):
        if urgent:
            with self._lock:
                self._urgent_runs -= 1
        self._drain()
        return fn(self._host, *args)

    def _drain(self) -> None:
        with self._lock:
            incoming, self._incoming = self._incoming, {}
            reset, self._reset_pending = self._reset_pending, False
            settings, root = self._settings, self._root
        if self._host is None or reset:
            from shapesense.analysis.db import AnalysisHost, EngineSettings, warm_up

            if self._host is None and self._factory is None:
                warm_up()  # the solver and lazily loaded engine parts, before a file needs them
            self._host = (self._factory or AnalysisHost)(EngineSettings(**settings), root)
            for path, text in self._texts.items():
                self._host.set_file(path, text)
            self.generation += 1
        for path, text in incoming.items():
            if text is _REMOVED:
                if self._texts.pop(path, None) is not None:
                    self._host.remove_file(path)
                    self.generation += 1
            else:
                text = fit(text, self.limits.max_bytes)[0]
                if self._texts.get(path) != text:
                    self._texts[path] = text
                    self._host.set_file(path, text)
                    self.generation += 1

    def _analyze(self, host: Any, snapshot: Snapshot, is_current) -> Outcome:
        path, limits, size = snapshot.path, self.limits, len(snapshot.index.text)
        with self._lock:
            if self._queued.get(path) == size:
                del self._queued[path]
        why: list[str] = []
        started = time.monotonic()
        key = (snapshot.revision, size)
        spent = self._spent.get(path, (None, 0.0))
        spent = spent[1] if spent[0] == key else 0.0
        deadline = started - spent + limits.budget_ms / 1000 if limits.budget_ms else None

        def cancel(hard: bool = False) -> bool:
            time.sleep(0)  # polled every few hundred engine steps: let the event loop in first
            if self.closed or is_current is not None and not is_current():
                why.append("superseded")
            elif self._gives_way(path, size, started, hard):
                why.append("preempted")
            elif deadline is not None and time.monotonic() > deadline:
                why.append("budget")
            return bool(why)

        if cancel():
            return Outcome(snapshot, None, self.generation, cancelled=why[0])
        text, cut = fit(snapshot.index.text, limits.max_bytes)
        notes = []
        if cut is not None:
            notes.append(f"ShapeSense analysed only the first {cut:,} of {len(snapshot.index.text):,} characters of "
                         f"this file (over shapesense.maxFileBytes = {limits.max_bytes:,}).")
        if self._texts.get(path) != text:
            self._texts[path] = text
            host.set_file(path, text)
            self.generation += 1
        first = path not in self._analysed
        self._analysed.add(path)
        logs = []
        with _gc_paused(), _solver_budget(limits.solver_budget_ms, self._factory is None) as solver_budget:
            try:
                with self.watchdog.guard(lambda: cancel(hard=True)):
                    if _takes_cancel(host):
                        analysis = host.analyze(path, cancel=cancel)
                    else:
                        analysis = host.analyze(path)
            except BaseException as exc:  # noqa: BLE001 - the engine's Cancelled may be a BaseException
                analysis = None
                if isinstance(exc, Interrupted):
                    # stopped from outside while parsing or lowering a file: that file's
                    # state may be half-updated, so it is rebuilt (or, when the stop landed
                    # anywhere else, the whole host)
                    logs.append(f"ShapeSense: the analysis of {path} did not stop when asked "
                                f"({why[0] if why else 'cancelled'}); it was interrupted while "
                                f"{self._recover(host, exc)}.")
                    if not why:
                        why.append("superseded")
                elif not _is_cancelled(exc):
                    if not isinstance(exc, Exception):
                        raise
                    self._log_error(f"ShapeSense: analysis of {path} failed\n{traceback.format_exc()}")
                elif not why:
                    why.append("superseded")  # the engine stopped by itself (no reason recorded)
                # A stopped run's frames hold its half-built state in cycles with the
                # traceback: clear them now rather than leave it all to the cyclic collector
                # (after _recover, which reads them).
                traceback.clear_frames(exc.__traceback__)
            if first and self._factory is None and analysis is not None:
                # What the first analysis of a file built (its parse, IR, memo) mostly lives
                # as long as the file is open: keep it out of every later collection (and
                # out of the one that would otherwise scan all of it right now).
                gc.freeze()
            self._heap.after_analysis()
            if solver_budget is not None and solver_budget.skipped:
                logs.append(f"ShapeSense: the solver budget of {limits.solver_budget_ms} ms "
                            f"(shapesense.solverBudgetMs) ran out in {path}; {solver_budget.skipped} "
                            f"symbolic checks were left undecided (no diagnostics from them).")
        if analysis is None and why and why[0] == "preempted":
            self._spent[path] = (key, spent + time.monotonic() - started)
        else:
            self._spent.pop(path, None)
        if analysis is not None or not why:
            self.unhurry(path)  # done: the requests waiting for it have their answer
        if analysis is None and why:
            if why[0] == "budget":
                spent = round((time.monotonic() - started) * 1000)
                notes.append(f"ShapeSense stopped analysing this file after {spent:,} ms (over "
                             f"shapesense.analysisBudgetMs = {limits.budget_ms:,}); results shown are "
                             f"from an earlier analysis, if any.")
            return Outcome(snapshot, None, self.generation, cancelled=why[0], notes=tuple(notes), logs=tuple(logs))
        return Outcome(snapshot, analysis, self.generation, notes=tuple(notes), logs=tuple(logs))


    def _recover(self, host: Any, exc: BaseException) -> str:
        """Make the host whole after an `Interrupted`; say what was being done."""
        parsing = _parsing_path(exc.__traceback__)
        if parsing is not None and parsing in self._texts:
            host.remove_file(parsing)
            host.set_file(parsing, self._texts[parsing])
            return f"parsing {parsing} (its parse was dropped)"
        self._host = None
        gc.unfreeze()  # what an earlier first analysis froze may now be garbage
        return "analysing (the engine was restarted)"


def _parsing_path(tb) -> str | None:
    """The file whose parse or lowering (AnalysisHost.units, and whatever it calls: the
    disk cache, syntax, lower, parso) the traceback ends in; None outside of it."""
    found = None
    while tb is not None:
        if in_units(tb.tb_frame.f_code):
            found = tb.tb_frame.f_locals.get("path")  # the innermost: units() may nest
        tb = tb.tb_next
    return found


def in_units(code) -> bool:
    return code.co_name == "units" and code.co_filename.endswith(os.path.join("analysis", "db.py"))


def parsing_now(frame) -> bool:
    """Is this stack (innermost frame first) inside AnalysisHost.units: parsing or lowering,
    where the engine's cancel check is never polled?"""
    while frame is not None:
        if in_units(frame.f_code):
            return True
        frame = frame.f_back
    return False


SLICE_S = 0.1  # a run may hold the analysis thread this long before another file's run goes first


def fit(text: str, max_bytes: int | None) -> tuple[str, int | None]:
    """`text`, or its longest prefix of whole top-level statements within `max_bytes` (UTF-8)
    and the length kept. Cutting before a top-level statement keeps what the prefix does
    exactly what the whole file does up to there; later code is simply absent."""
    if not max_bytes or len(text) <= max_bytes // 4:
        return text, None
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return text, None
    limit = max_bytes * len(text) // size
    end = text.rfind("\n", 0, limit)
    for _ in range(10_000):  # back to a line that starts a statement at column 0
        if end < 0:
            return "", 0
        nxt = text[end + 1:end + 2]
        prev = text.rfind("\n", 0, end) + 1
        if nxt and nxt not in " \t#)]}'\"\r\n\\" and not text.startswith(_CONTINUATIONS, end + 1) \
                and not text.startswith("@", prev):  # not between a decorator and its def
            break
        end = text.rfind("\n", 0, end)
    cut = max(0, end + 1)
    return text[:cut], cut


_CONTINUATIONS = ("else", "elif", "except", "finally", "case")
_CANCEL_SUPPORT: dict = {}


def _takes_cancel(host: Any) -> bool:
    kind = type(host)
    if kind not in _CANCEL_SUPPORT:
        try:
            _CANCEL_SUPPORT[kind] = "cancel" in inspect.signature(host.analyze).parameters
        except (TypeError, ValueError):
            _CANCEL_SUPPORT[kind] = False
    return _CANCEL_SUPPORT[kind]


def _is_cancelled(exc: BaseException) -> bool:
    """The engine's `analysis.frames.Cancelled` (or a test engine's own, by name)."""
    return type(exc).__name__ == "Cancelled"


@contextlib.contextmanager
def _solver_budget(total_ms: int | None, real_engine: bool):
    if not real_engine:
        yield None
        return
    from shapesense.analysis import solver

    with solver.analysis_budget(total_ms) as budget:
        yield budget


@contextlib.contextmanager
def _gc_paused():
    """No cyclic collection while an analysis runs: it allocates many objects that mostly
    survive, and collections in the middle of it (tens of ms on a cold 3,000-line file)
    only delay the diagnostics. The young objects are collected after, as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
