"""The one analysis thread and the AnalysisHost it owns.

Every call into the host happens on this thread: parso trees mutate in place, jedi is
not thread-safe and z3 contexts cannot be shared. The event loop only queues work here.
File texts written from the loop (open buffers, saved or watched files) are buffered and
drained at the start of the next job, so every analysis sees the newest text of every
other file without the loop ever touching the host. The engine itself is imported on
this thread, on first use, so `initialize` is answered without waiting for it.
"""
from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from shapesense.analysis.results import FileAnalysis

from .documents import LineIndex

_REMOVED = object()


@dataclass(frozen=True)
class Snapshot:
    """The text of one document at one version, as handed to the engine."""

    uri: str
    path: str
    version: int
    index: LineIndex


@dataclass(frozen=True)
class Outcome:
    snapshot: Snapshot
    analysis: FileAnalysis | None  # None: the engine failed on this text (logged)
    generation: int  # the host's generation the analysis was computed at


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
        # Worker-thread state.
        self._host: Any = None  # the AnalysisHost
        self._texts: dict[str, str] = {}
        self._analysed: set[str] = set()  # paths analysed at least once
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
        None once shut down."""
        if self.closed:
            return None
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, fn, args)

    async def analyze(self, snapshot: Snapshot, is_current: Callable[[], bool] | None = None) -> Outcome | None:
        """Analyse `snapshot`; None if `is_current` says it went stale before starting."""
        return await self.run(self._analyze, snapshot, is_current)

    def shutdown(self) -> None:
        self.closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- on the analysis thread --------------------------------------------------
    def _call(self, fn: Callable, args: tuple):
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
            elif self._texts.get(path) != text:
                self._texts[path] = text
                self._host.set_file(path, text)
                self.generation += 1

    def _analyze(self, host: Any, snapshot: Snapshot, is_current) -> Outcome | None:
        if is_current is not None and not is_current():
            return None  # cancelled by a newer revision
        if self._texts.get(snapshot.path) != snapshot.index.text:
            self._texts[snapshot.path] = snapshot.index.text
            host.set_file(snapshot.path, snapshot.index.text)
            self.generation += 1
        first = snapshot.path not in self._analysed
        self._analysed.add(snapshot.path)
        with _gc_paused():
            try:
                analysis = host.analyze(snapshot.path)
            except Exception:
                self._log_error(f"ShapeSense: analysis of {snapshot.path} failed\n{traceback.format_exc()}")
                analysis = None
            if first and self._factory is None:
                # What the first analysis of a file built (its parse, IR, memo) mostly lives
                # as long as the file is open: keep it out of every later collection (and
                # out of the one that would otherwise scan all of it right now).
                gc.freeze()
        return Outcome(snapshot, analysis, self.generation)


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
