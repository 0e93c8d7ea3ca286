"""Handlers never take the server down: exceptions are logged to the client instead."""
from __future__ import annotations

import asyncio
import traceback
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .app import ShapeLanguageServer


def guarded(ls: "ShapeLanguageServer", method: str, default: Any = None) -> Callable:
    """Wrap `fn(ls, params)` as a pygls handler `(params)` that logs any exception
    (window/logMessage) and answers `default`. No functools.wraps: pygls inspects the
    signature to decide whether to pass the server, and must see `(params)`."""

    def decorate(fn: Callable) -> Callable:
        def report() -> Any:
            ls.log_error(f"ShapeSense: {method} failed\n{traceback.format_exc()}")
            return default

        if asyncio.iscoroutinefunction(fn):
            async def handler(params):
                try:
                    return await fn(ls, params)
                except Exception:
                    return report()
        else:
            def handler(params):
                try:
                    return fn(ls, params)
                except Exception:
                    return report()

        handler.__name__ = handler.__qualname__ = fn.__name__
        handler.__doc__ = fn.__doc__
        return handler

    return decorate


def feature(ls: "ShapeLanguageServer", method: str, options: Any = None, default: Any = None) -> Callable:
    """`@feature(ls, METHOD)`: register a guarded handler for an LSP method."""

    def decorate(fn: Callable) -> Callable:
        ls.feature(method, options)(guarded(ls, method, default)(fn))
        return fn

    return decorate
