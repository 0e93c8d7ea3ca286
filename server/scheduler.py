"""When to analyse: per-document debounce on the event loop, revision checks, a cache.

- Each edit restarts the document's debounce timer (an asyncio task, so publishing
  always happens on the loop, never from a timer thread).
- A debounced job that finds its version superseded before it starts is skipped, and a
  result whose version is no longer the document's is dropped, never published.
- Requests (hover, inlay hints, code actions, pull diagnostics) skip the debounce and
  await the analysis of the document's current version, sharing an in-flight job.
"""
from __future__ import annotations

import asyncio
import traceback
from typing import Awaitable, Callable

from .documents import DocumentStore
from .paths import uri_to_path
from .worker import AnalysisWorker, Outcome, Snapshot

# Clients name Python differently; anything else a client sends us is kept but not analysed.
PYTHON_LANGUAGE_IDS = {"python", "py", "python3", ""}


class Scheduler:
    def __init__(
        self,
        worker: AnalysisWorker,
        documents: DocumentStore,
        debounce_ms: Callable[[], int],
        log_error: Callable[[str], None],
    ):
        self.worker = worker
        self._log_error = log_error
        self.documents = documents
        # Called on the loop with each debounced result that is still current.
        self.on_result: Callable[[Outcome], Awaitable[None] | None] | None = None
        self._debounce_ms = debounce_ms
        self._timers: dict[str, asyncio.Task] = {}
        self._inflight: dict[tuple[str, int], asyncio.Future] = {}
        self._latest: dict[str, Outcome] = {}
        # Documents analysed as part of another (notebook cells): `view_of(uri)` gives that
        # document's uri and how to make this one's Outcome from its Outcome (or None).
        self.view_of: Callable[[str], tuple[str, Callable[[Outcome | None], Outcome | None]] | None] = lambda uri: None

    def snapshot(self, uri: str) -> Snapshot | None:
        doc = self.documents.get(uri)
        if doc is None or doc.language_id not in PYTHON_LANGUAGE_IDS:
            return None
        return Snapshot(uri, uri_to_path(uri), doc.version, doc.index)

    def touch(self, uri: str, delay: bool = True) -> None:
        """(Re)start the debounce timer of `uri`; its result goes to `on_result`."""
        old = self._timers.pop(uri, None)
        if old is not None:
            old.cancel()
        task = asyncio.ensure_future(self._debounced(uri, delay))
        self._timers[uri] = task
        task.add_done_callback(lambda t, uri=uri: self._timers.pop(uri, None) if self._timers.get(uri) is t else None)

    def touch_all(self) -> None:
        for doc in self.documents:
            self.touch(doc.uri)

    def shutdown(self) -> None:
        for timer in list(self._timers.values()):
            timer.cancel()
        self._timers.clear()
        self.worker.shutdown()

    def forget(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._latest.pop(uri, None)

    def invalidate(self) -> None:
        """Cached results no longer count as current (settings or other files changed)."""
        self._latest.clear()

    def cached(self, uri: str) -> Outcome | None:
        return self._latest.get(uri)

    async def current(self, uri: str) -> Outcome | None:
        """The analysis of the current version of `uri` (None for unknown documents)."""
        if (view := self.view_of(uri)) is not None:
            return view[1](await self.current(view[0]))
        snap = self.snapshot(uri)
        if snap is None:
            return None
        hit = self._latest.get(uri)
        if (
            hit is not None
            and hit.snapshot.version == snap.version
            and hit.generation == self.worker.generation
            and not self.worker.has_pending_input
        ):
            return hit
        return await self._analyze(snap, skip_if_stale=False)

    async def settled(self, uri: str, rounds: int = 20) -> Outcome | None:
        """Like `current`, but first lets a pending debounce run out, and retries while
        the document keeps changing: pulled diagnostics carry no version, so they must
        describe the newest text (bounded, so a flood of edits cannot starve the reply)."""
        outcome = None
        for _ in range(rounds):
            timer = self._timers.get(uri)
            if timer is not None:
                await asyncio.wait([timer])
            outcome = await self.current(uri)
            if outcome is None or outcome.snapshot.version == self.documents.version(uri):
                return outcome
        return outcome

    async def _debounced(self, uri: str, delay: bool) -> None:
        if delay:
            await asyncio.sleep(max(0, self._debounce_ms()) / 1000)
        snap = self.snapshot(uri)
        if snap is None:
            return
        try:
            outcome = await self._analyze(snap, skip_if_stale=True)
            if outcome is None or self.documents.version(uri) != outcome.snapshot.version:
                return  # superseded: a newer timer is already running
            result = self.on_result(outcome) if self.on_result else None
            if asyncio.iscoroutine(result):
                await result
        except Exception:  # nobody awaits this task: report here or never
            self._log_error(f"ShapeSense: background analysis of {uri} failed\n{traceback.format_exc()}")

    async def _analyze(self, snap: Snapshot, skip_if_stale: bool) -> Outcome | None:
        key = (snap.uri, snap.version)
        fut = self._inflight.get(key)
        if fut is None:
            is_current = (lambda: self.documents.version(snap.uri) == snap.version) if skip_if_stale else None
            fut = asyncio.ensure_future(self.worker.analyze(snap, is_current))
            self._inflight[key] = fut
            fut.add_done_callback(lambda f: self._inflight.pop(key, None) if self._inflight.get(key) is f else None)
        # shield: a cancelled debounce timer must not cancel a job a request awaits too
        outcome = await asyncio.shield(fut)
        if outcome is None and not skip_if_stale and not self.worker.closed:
            # the shared job was skipped as stale; this caller still wants an answer
            outcome = await self.worker.analyze(snap)
        if outcome is not None and self.documents.version(snap.uri) == outcome.snapshot.version:
            prev = self._latest.get(snap.uri)
            if prev is None or (prev.snapshot.version, prev.generation) <= (outcome.snapshot.version, outcome.generation):
                self._latest[snap.uri] = outcome
        return outcome
