"""A stand-in LSP server for checking the benchmark harness itself (not a benchmark).

    python -m bench.fake_server [--die-after N] [--silent] [--no-publish] [--delay-ms D]

Speaks just enough LSP over stdio: initialize, didOpen/didChange (incremental, applied with
bench.traces.Doc), publishDiagnostics tagged with the version, hover, inlayHint, codeAction,
shutdown/exit. The failure switches let tests check that the harness fails with a clear
message instead of hanging.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.traces import Doc  # noqa: E402


def read_msg(inp):
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))


def write_msg(out, payload):
    body = json.dumps(payload).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--die-after", type=int, default=-1, help="exit after this many didChange")
    ap.add_argument("--silent", action="store_true", help="never answer anything")
    ap.add_argument("--no-publish", action="store_true")
    ap.add_argument("--delay-ms", type=float, default=0.0)
    a = ap.parse_args()
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    docs: dict[str, Doc] = {}
    changes = 0

    def publish(uri):
        if a.no_publish:
            return
        d = docs[uri]
        diags = []
        for i, line in enumerate(d.text.split("\n")):
            if "nn.Linear(1124" in line:
                diags.append({"range": {"start": {"line": i, "character": 8}, "end": {"line": i, "character": 30}},
                              "severity": 1, "message": "fake"})
        write_msg(out, {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                        "params": {"uri": uri, "version": d.version, "diagnostics": diags}})

    while True:
        msg = read_msg(inp)
        if msg is None:
            return
        if a.silent:
            continue
        m, rid = msg.get("method"), msg.get("id")
        p = msg.get("params") or {}
        if a.delay_ms:
            time.sleep(a.delay_ms / 1000)
        if m == "initialize":
            write_msg(out, {"jsonrpc": "2.0", "id": rid, "result": {"capabilities": {
                "textDocumentSync": {"openClose": True, "change": 2}, "hoverProvider": True,
                "inlayHintProvider": True, "codeActionProvider": True}}})
        elif m == "initialized":  # like ShapeSense: ready once the workspace is indexed
            write_msg(out, {"jsonrpc": "2.0", "method": "window/logMessage",
                            "params": {"type": 4, "message": "fake: indexed 0 Python files"}})
        elif m == "textDocument/didOpen":
            td = p["textDocument"]
            docs[td["uri"]] = Doc(td["text"], td["version"])
            publish(td["uri"])
        elif m == "textDocument/didChange":
            changes += 1
            if changes == a.die_after:
                os._exit(3)
            d = docs[p["textDocument"]["uri"]]
            for c in p["contentChanges"]:
                if "range" in c:
                    d.apply(c)
                else:
                    d.text = c["text"]
            d.version = p["textDocument"]["version"]
            d._starts = Doc(d.text)._starts
            publish(p["textDocument"]["uri"])
        elif m == "textDocument/didClose":
            docs.pop(p["textDocument"]["uri"], None)
        elif m == "textDocument/hover":
            write_msg(out, {"jsonrpc": "2.0", "id": rid, "result": {"contents": {"kind": "markdown", "value": "Tensor[8, 3]"}}})
        elif m in ("textDocument/inlayHint", "textDocument/codeAction"):
            write_msg(out, {"jsonrpc": "2.0", "id": rid, "result": []})
        elif m == "shutdown":
            write_msg(out, {"jsonrpc": "2.0", "id": rid, "result": None})
        elif m == "exit":
            return
        elif rid is not None:
            write_msg(out, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {m}"}})


if __name__ == "__main__":
    main()
