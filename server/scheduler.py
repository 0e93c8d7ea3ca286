"""When to analyse, and what requests are answered from.

- Requests (hover, inlay hints, code actions) are answered at once from the latest
  finished analysis of the document, placed on the current text when it is older
  (`stale.py`: results on the lines that changed are left out). Only a document with no
  finished analysis yet makes a request wait, boundedly, and that request's file goes
  first: a background analysis of another file gives way (it is cancelled and re-queued).
- Edits: by default (adaptive) an idle document is analysed at once; an edit during a run
  cancels the run (the engine polls a cancel check) and at most one more run, of the
  newest text, follows. (A run is let finish when nothing of its document finished for a
  second, so a storm of edits cannot starve every result.) With `debounceMs` set, each edit restarts a timer instead.
- A run's result is published only if its version is still the document's; results of
  older versions still become the latest finished analysis that requests use.
- Per-analysis limits (time, size, solver time) come from the settings; a run over its
  time budget is cancelled, reported once (log) and as an information diagnostic, and
  not retried until the text changes.
"""
from __future__ import annotations

import asyncio
import time
import traceback
from typing import Any, Awaitable, Callable

from .documents import DocumentStore
from .paths import uri_to_path
from .stale import LineMap, placed
from .worker import AnalysisWorker, Limits, Outcome, Snapshot

# Clients name Python differently; anything else a client sends us is kept but not analysed.
PYTHON_LANGUAGE_IDS = {"python", "py", "python3", ""}

FIRST_WAIT_S = 10.0  # a request on a document never analysed waits this long at most
LET_FINISH_AFTER_S = 1.0  # a superseded run is let finish when the latest result is older


class Scheduler:
    def __init__(
        self,
        worker: AnalysisWorker,
        documents: DocumentStore,
        settings: Callable[[], Any],
        log_error: Callable[[str], None],
    ):
        """`settings()`: the current Settings (debounce_ms, analysis_budget_ms, ...)."""
        self.worker = worker
        self._log_error = log_error
        self.documents = documents
        self._settings = settings
        # Called on the loop with each result that is still current (push diagnostics).
        self.on_result: Callable[[Outcome], Awaitable[None] | None] | None = None
        # Called with "diagnostics" / "inlay_hints" when a fresh result replaces one that
        # a request was answered from while stale (the client should ask again).
        self.on_refresh: Callable[[str], None] | None = None
        self.log_note: Callable[[str], None] | None = None
        self._timers: dict[str, asyncio.Task] = {}
        self._jobs: dict[str, asyncio.Task] = {}  # uri -> the run queued or running
        self._latest: dict[str, Outcome] = {}  # uri -> latest finished analysis (any version)
        self._latest_at: dict[str, float] = {}  # uri -> when it finished (monotonic)
        self._invalid: set[str] = set()  # latest results that no longer count as current
        self._over_budget: dict[str, int] = {}  # uri -> revision whose run overran its budget
        self._waiters: dict[str, list[asyncio.Future]] = {}
        self._stale_served: dict[str, set[str]] = {}
        self._placed: dict[str, tuple[int, int, Outcome]] = {}  # uri -> (id(latest), revision, placed)
        self._logged: dict[str, set[str]] = {}
        # Documents analysed as part of another (notebook cells): `view_of(uri)` gives that
        # document's uri and how to make this one's Outcome from its Outcome (or None).
        self.view_of: Callable[[str], tuple[str, Callable[[Outcome | None], Outcome | None]] | None] = lambda uri: None

    # -- documents ---------------------------------------------------------------------
    def snapshot(self, uri: str) -> Snapshot | None:
        doc = self.documents.get(uri)
        if doc is None or doc.language_id not in PYTHON_LANGUAGE_IDS:
            return None
        return Snapshot(uri, uri_to_path(uri), doc.version, doc.index, _revision(doc))

    def _revision_of(self, uri: str):
        doc = self.documents.get(uri)
        return None if doc is None else _revision(doc)

    def limits(self) -> Limits:
        s = self._settings()
        return Limits(getattr(s, "analysis_budget_ms", None), getattr(s, "max_file_bytes", None),
                      getattr(s, "solver_budget_ms", None))

    # -- edits -------------------------------------------------------------------------
    def touch(self, uri: str, delay: bool = True) -> None:
        """The document changed (or its inputs did): analyse it, now or after the
        configured debounce. Its result goes to `on_result`."""
        old = self._timers.pop(uri, None)
        if old is not None:
            old.cancel()
        debounce = getattr(self._settings(), "debounce_ms", None)
        if delay and debounce is not None:
            task = asyncio.ensure_future(self._debounced(uri, debounce))
            self._timers[uri] = task
            task.add_done_callback(lambda t, uri=uri: self._timers.pop(uri, None) if self._timers.get(uri) is t else None)
            return
        self._start(uri)

    def touch_all(self) -> None:
        for doc in self.documents:
            self.touch(doc.uri)

    async def _debounced(self, uri: str, debounce_ms: int) -> None:
        await asyncio.sleep(max(0, debounce_ms) / 1000)
        self._timers.pop(uri, None)
        self._start(uri)

    def shutdown(self) -> None:
        for timer in list(self._timers.values()):
            timer.cancel()
        self._timers.clear()
        self.worker.shutdown()
        for uri in list(self._waiters):
            self._wake(uri)

    def forget(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        for table in (self._latest, self._latest_at, self._over_budget, self._stale_served, self._placed, self._logged):
            table.pop(uri, None)
        self._invalid.discard(uri)
        self._wake(uri)

    def invalidate(self) -> None:
        """Latest results no longer count as current (settings or other files changed);
        they still answer requests until newer ones finish."""
        self._invalid.update(self._latest)
        self._over_budget.clear()

    def cached(self, uri: str) -> Outcome | None:
        return self._latest.get(uri)

    # -- runs --------------------------------------------------------------------------
    def _is_fresh(self, uri: str, outcome: Outcome | None) -> bool:
        return (
            outcome is not None
            and uri not in self._invalid
            and outcome.snapshot.revision == self._revision_of(uri)
            and outcome.snapshot.version == self.documents.version(uri)
            and outcome.generation == self.worker.generation
            and not self.worker.has_pending_input
        )

    def _start(self, uri: str, other_files: bool = False) -> None:
        """Queue a run of the newest text unless one is queued or running (a running one
        of an older text cancels itself: its cancel check sees the new revision). With
        `other_files` (a request asks), changes of other files' texts count too; without
        it, typing in one file does not re-run every other open one."""
        if uri in self._jobs or uri in self._timers or self.worker.closed:
            return
        snap = self.snapshot(uri)
        if snap is None:
            return
        latest = self._latest.get(uri)
        if other_files:
            done = self._is_fresh(uri, latest)
        else:
            done = (latest is not None and uri not in self._invalid and latest.snapshot.revision == snap.revision
                    and latest.snapshot.version == snap.version)
        if done or self._over_budget.get(uri) == snap.revision:
            self._wake(uri)
            return
        self.worker.limits = self.limits()
        task = asyncio.ensure_future(self._run(snap))
        self._jobs[uri] = task

    def _still_wanted(self, snap: Snapshot) -> Callable[[], bool]:
        """The cancel check's view of a run (polled on the analysis thread): its text is
        still the newest, or the document has no finished analysis at all (a first
        analysis is let finish, so a burst of typing cannot starve it)."""

        def check() -> bool:
            doc = self.documents.get(snap.uri)
            if doc is None or not self.documents.same_open(snap.uri, snap.revision):
                return False
            if _revision(doc) == snap.revision and doc.version == snap.version:
                return True
            # superseded: stop, unless nothing of this document finished for a while (a
            # first analysis, or a storm of edits): then this one is let finish
            done = self._latest_at.get(snap.uri)
            return done is None or time.monotonic() - done > LET_FINISH_AFTER_S

        return check

    async def _run(self, snap: Snapshot) -> None:
        uri = snap.uri
        outcome = None
        try:
            outcome = await self.worker.analyze(snap, self._still_wanted(snap))
        except Exception:  # nobody awaits this task: report here or never
            self._log_error(f"ShapeSense: background analysis of {uri} failed\n{traceback.format_exc()}")
        finally:
            if self._jobs.get(uri) is asyncio.current_task():
                self._jobs.pop(uri, None)
        if outcome is None or not self.documents.same_open(uri, snap.revision):
            self._wake(uri)  # closed, or reopened since: this run's text is gone
            self._start(uri)  # (the reopened text's run waited for this one)
            return
        self.worker.unhurry(snap.path)
        try:
            await self._finished(uri, outcome)
        except Exception:
            self._log_error(f"ShapeSense: handling the analysis of {uri} failed\n{traceback.format_exc()}")
        finally:
            self._start(uri)  # a newer text (or a preempted run) is analysed next

    async def _finished(self, uri: str, outcome: Outcome) -> None:
        for line in outcome.logs:
            self._note_once(uri, line)
        if outcome.cancelled in ("superseded", "preempted"):
            return  # `_run` queues the newest text again
        if outcome.cancelled == "budget":
            self._over_budget[uri] = outcome.snapshot.revision
            for note in outcome.notes:
                self._note_once(uri, note)
            prev = self._latest.get(uri)
            base = prev.analysis if prev is not None and prev.analysis is not None else None
            if prev is None:
                from shapesense.analysis.results import FileAnalysis

                base = FileAnalysis(outcome.snapshot.path)
                prev = Outcome(outcome.snapshot, base, outcome.generation)
            # the earlier results, placed on this text, with the reason they are old
            here = self._place(uri, prev, outcome.snapshot) if prev.snapshot.index is not outcome.snapshot.index else prev
            outcome = Outcome(outcome.snapshot, here.analysis, outcome.generation, notes=outcome.notes,
                              stale=here.stale, changed=here.changed)
            if uri not in self._latest:
                self._latest[uri] = outcome
        else:
            for note in outcome.notes:
                self._note_once(uri, note)
            self._latest[uri] = outcome
            self._latest_at[uri] = time.monotonic()
            self._invalid.discard(uri)
            self._placed.pop(uri, None)
        self._wake(uri)
        if outcome.snapshot.version != self.documents.version(uri) or outcome.snapshot.revision != self._revision_of(uri):
            return  # superseded: a newer run follows
        stale_served = self._stale_served.pop(uri, set())
        if self.on_refresh is not None:
            for kind in sorted(stale_served):
                self.on_refresh(kind)
        result = self.on_result(outcome) if self.on_result else None
        if asyncio.iscoroutine(result):
            await result

    def _note_once(self, uri: str, message: str) -> None:
        seen = self._logged.setdefault(uri, set())
        if len(seen) > 64:  # messages carry numbers (ms spent): keep the memory bounded
            seen.clear()
        if message not in seen and self.log_note is not None:
            seen.add(message)
            self.log_note(message)

    def _wake(self, uri: str) -> None:
        for fut in self._waiters.pop(uri, []):
            if not fut.done():
                fut.set_result(None)

    async def _wait(self, uri: str, timeout: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(uri, []).append(fut)
        try:
            await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            pass

    # -- requests ----------------------------------------------------------------------
    async def current(self, uri: str, wait_s: float = FIRST_WAIT_S) -> Outcome | None:
        """The latest finished analysis of `uri`, placed on its current text (marked
        `stale` when it is of an older text); None for unknown documents, or when no
        analysis finished within `wait_s` of asking."""
        if (view := self.view_of(uri)) is not None:
            return view[1](await self.current(view[0], wait_s))
        snap = self.snapshot(uri)
        if snap is None:
            return None
        self._start(uri, other_files=True)
        if uri not in self._latest:
            deadline = time.monotonic() + wait_s
            self.worker.hurry(snap.path)  # others give way to the file a request waits for
            try:
                while uri not in self._latest and uri in self.documents and not self.worker.closed:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._start(uri)
                    await self._wait(uri, left)
            finally:
                self.worker.unhurry(snap.path)
            snap = self.snapshot(uri)
            if snap is None or uri not in self._latest:
                return None
        return self._place(uri, self._latest[uri], snap)

    async def fresh(self, uri: str, wait_s: float) -> Outcome | None:
        """Like `current`, but first waits up to `wait_s` for an analysis of the current
        text (for a request about the very lines that changed)."""
        if (view := self.view_of(uri)) is not None:
            return view[1](await self.fresh(view[0], wait_s))
        outcome = await self.current(uri)
        asked = time.monotonic()
        deadline = asked + wait_s
        path = outcome.snapshot.path if outcome is not None else None
        try:
            while outcome is not None and outcome.stale and self._over_budget.get(uri) != self._revision_of(uri):
                latest = self._latest.get(uri)
                if latest is not None and self._latest_at.get(uri, 0.0) >= asked and \
                        latest.snapshot.revision == self._revision_of(uri):
                    break  # this text was analysed since the request (other files may change on)
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.worker.hurry(path)  # a request waits for this file: others give way
                self._start(uri, other_files=True)
                await self._wait(uri, left)
                outcome = await self.current(uri)
        finally:
            if path is not None:
                self.worker.unhurry(path)
        return outcome

    async def settled(self, uri: str, wait_s: float = 0.5) -> Outcome | None:
        """For pulled diagnostics, which carry no version: the analysis of the current
        text if it finishes within `wait_s` (any debounce included), else the latest one
        placed on the current text; the client is asked to pull again when the current
        one arrives."""
        if (view := self.view_of(uri)) is not None:
            return view[1](await self.settled(view[0], wait_s))
        timer = self._timers.get(uri)
        if timer is not None:
            await asyncio.wait([timer], timeout=wait_s)
        outcome = await self.fresh(uri, wait_s)
        if outcome is None or outcome.stale:
            self.served_stale(uri, "diagnostics")
        return outcome

    def catch_up(self, uri: str) -> None:
        """A request was answered at once from a stale analysis: analyse the current text,
        other files' changes included, so that the next request sees it."""
        uri = view[0] if (view := self.view_of(uri)) is not None else uri
        self._start(uri, other_files=True)

    def served_stale(self, uri: str, kind: str) -> None:
        """A request was answered from a stale analysis: refresh `kind` when a fresh one lands."""
        uri = view[0] if (view := self.view_of(uri)) is not None else uri
        self._stale_served.setdefault(uri, set()).add(kind)

    def _place(self, uri: str, outcome: Outcome, snap: Snapshot) -> Outcome:
        """`outcome` on the text of `snap` (itself when it is that text's analysis)."""
        if outcome.snapshot.index is snap.index or outcome.snapshot.index.text == snap.index.text:
            if outcome.snapshot.version == snap.version and outcome.snapshot.revision == snap.revision:
                if self._is_fresh(uri, outcome) or outcome.stale:
                    return outcome
            # same text, but other files (or settings) changed since: stale, with no lines
            # known to differ (changed=None)
            return Outcome(snap, outcome.analysis, outcome.generation, notes=outcome.notes, stale=True)
        hit = self._placed.get(uri)
        if hit is not None and hit[0] == id(outcome) and hit[1] == snap.revision and hit[2].snapshot.version == snap.version:
            return hit[2]
        lines = LineMap.between(outcome.snapshot.index, snap.index)
        analysis = placed(outcome.analysis, lines) if outcome.analysis is not None else None
        changed = lines.changed
        if outcome.stale and outcome.changed is not None:  # already placed once: keep its gap
            lo, hi = outcome.changed
            mapped = [x for x in (lines.line(lo), lines.line(max(lo, hi - 1))) if x is not None]
            if mapped:
                changed = (min(changed[0], mapped[0]), max(changed[1], mapped[-1] + 1))
        out = Outcome(snap, analysis, outcome.generation, notes=outcome.notes, stale=True, changed=changed)
        self._placed[uri] = (id(outcome), snap.revision, out)
        return out


def _revision(doc) -> int:
    return getattr(doc, "revision", 0)
