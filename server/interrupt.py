"""Stopping an analysis that does not stop by itself.

The engine polls its cancel check at its step counter, but parsing and lowering (parso,
pure Python) have no such counter: a 1 MB line or a multi-megabyte file can hold the
analysis thread for many seconds. A watchdog thread evaluates the same check while a run
is guarded; when it has said "stop" for `grace_s`, and the run is in code that never
polls (the caller says where), the watchdog raises `Interrupted` inside the analysis
thread (CPython's asynchronous exception, taken at the next bytecode). What that code was
building is then suspect: the caller rebuilds it (worker.py: the file's parse state).
"""
from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
import time
from typing import Callable


class Interrupted(BaseException):
    """Raised asynchronously in a guarded run that ignored its cancel check."""


def _raise_in(thread_id: int, exc: type | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


class Watchdog:
    def __init__(self, interruptible: Callable[[object], bool], grace_s: float = 0.1, tick_s: float = 0.05):
        """`interruptible(frame)`: may the guarded thread, whose innermost frame this is, be
        interrupted there (code that never polls the cancel check)? Elsewhere the run is
        left to stop by itself."""
        self.interruptible = interruptible
        self.grace_s = grace_s
        self.tick_s = tick_s
        self._lock = threading.Lock()
        self._armed: list | None = None  # [thread id, check, since when it says stop]
        self._thread: threading.Thread | None = None
        self.fired = 0

    @contextlib.contextmanager
    def guard(self, check: Callable[[], bool]):
        """Run the body under the watchdog: it may raise `Interrupted` inside it."""
        tid = threading.get_ident()
        with self._lock:
            self._armed = [tid, check, None]
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="shapesense-watchdog", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                if self._armed is None:  # it fired: drop the exception if not delivered yet
                    _raise_in(tid, None)
                self._armed = None

    def _watch(self) -> None:
        while True:
            time.sleep(self.tick_s)
            with self._lock:
                armed = self._armed
                if armed is None:
                    continue
                tid, check, since = armed
                try:
                    stop = check()
                except Exception:  # noqa: BLE001 - a broken check never kills a run
                    stop = False
                now = time.monotonic()
                if not stop:
                    armed[2] = None
                elif since is None:
                    armed[2] = now  # give the run the chance to stop by itself first
                elif now - since >= self.grace_s and self.interruptible(sys._current_frames().get(tid)):
                    self._armed = None
                    self.fired += 1
                    _raise_in(tid, Interrupted)
