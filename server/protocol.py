"""JSON-RPC protocol tweaks.

- A request with malformed params gets an InvalidParams response: pygls validates
  params while decoding and, when that fails, only logs, so the client would wait
  forever for the answer.
- Text sync goes only to our document store (server/documents.py): pygls's own copy
  splits lines with `str.splitlines` and an exception there would skip our handler.
- Lifecycle per the protocol: after `shutdown` every request but `exit` gets an
  InvalidRequest error (pygls drops them unanswered); `exit` ends the process at once
  with status 0 after `shutdown`, else 1 (pygls's SystemExit was swallowed, status 0,
  and waited for the analysis thread).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .transport import end_process

log = logging.getLogger(__name__)


@dataclass
class _MalformedRequest:
    id: Any
    method: str
    error: Exception


class ShapeProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and isinstance(data.get("method"), str):
                return _MalformedRequest(data["id"], data["method"], exc)
            raise

    def handle_message(self, message):
        if isinstance(message, _MalformedRequest):
            cause = message.error.__cause__ or message.error
            text = f"Invalid params for {message.method}: {cause}"
            log.warning(text)
            self._send_response(message.id, None, JsonRpcInvalidParams(text).to_response_error())
            self._server._report_server_error(JsonRpcInvalidParams(text), JsonRpcInvalidParams)
            return
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, types.EXIT) and getattr(message, "id", None) is not None:
            error = JsonRpcInvalidRequest(f"the server is shut down: {method} not handled")
            self._send_response(message.id, None, error.to_response_error())
            return
        super().handle_message(message)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args):
        yield from self._user_handler(types.EXIT, args[0] if args else None)
        end_process(0 if self._shutdown else 1)

    def _handle_notification(self, method_name: str, params):
        # pygls 2.1 keeps a future for every notification handled by a generator or
        # coroutine (didChange, ...) under a fresh id and never drops it: about 2 KB per
        # edit. Forget those futures once they are done.
        before = set(self._request_futures.copy())
        super()._handle_notification(method_name, params)
        for key in set(self._request_futures.copy()) - before:
            self._request_futures[key].add_done_callback(lambda future, key=key: self._forget(future, key))

    def _forget(self, future, key):
        if future.cancelled():
            return  # cancelled while pygls iterates the table at shutdown: leave it there
        self._request_futures.pop(key, None)

    def _user_handler(self, method: str, params):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    # Notebook sync goes only to server/features/notebooks.py, for the same reason.
    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def lsp_notebook_document__did_open(self, params):
        yield from self._user_handler(types.NOTEBOOK_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params):
        yield from self._user_handler(types.NOTEBOOK_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def lsp_notebook_document__did_close(self, params):
        yield from self._user_handler(types.NOTEBOOK_DOCUMENT_DID_CLOSE, params)
