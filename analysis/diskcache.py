"""The on-disk cache of parsed and lowered files, in the user's cache folder.

Parsing (parso) and lowering are about half of a cold open: about 340 ms of CPU for a
3,000-line model file on a busy 2-core machine, and as much again for the library files a
model imports (torchvision, timm, ...).
Both depend on the file's text alone, so their result is stored per text hash and read
back on the next open instead. What is stored is the lowering of each top-level statement
(its IR, its span table, the function units of its defs) and where each statement starts
and ends; parse trees are not stored: a statement is parsed again, alone, only when an
edit needs its tree (analysis.syntax, lazy segments). A restored file gives the same units
as a fresh lowering (tests/test_diskcache.py compares every fact and diagnostic).

Where: `$SHAPESENSE_CACHE_DIR`, else `$XDG_CACHE_HOME/shapesense`, else
`~/.cache/shapesense` (`%LOCALAPPDATA%\\shapesense` on Windows; `SHAPESENSE_CACHE=off`
turns it off); files under `units/`,
one folder per library distribution (`torchvision-0.28.0/`) and one for other files
(`files/`), each file named by the hash of its text and of the code that lowered it. Never
inside the analysed workspace (a folder there is refused). Bounded: past
`$SHAPESENSE_CACHE_MAX_MB` (default 256) the least recently used files are removed.

Trust: the folder is the user's own, but a file there may be truncated (a full disk, a
killed process), corrupt or from another version. Entries are JSON (never pickle: loading
it cannot run code), carry a checksum of their body and the schema they were written
with, and are rebuilt only through a fixed table of IR classes with their field counts;
anything unexpected makes the entry a miss (and it is removed), never an error. (A library
def's body is decoded when a call first reads it: an entry rewritten with a valid checksum
but a bad body would fail that analysis as an engine error does, running nothing.)
"""
from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import queue
import sys
import tempfile
import threading
import time


from . import ir, lower
from .ircodec import CLASSES, FIELDS, CorruptEntry, decode, encode, spans_in, spans_out
from .syntax import Segment, split_lines

log = logging.getLogger(__name__)

FORMAT = 1  # bump when the layout of an entry changes
_MAGIC = b"shapesense-units"
_MAX_ENTRY_BYTES = 64 << 20  # an entry larger than this is not read (nor written)
_DEFAULT_MAX_MB = 256
_PRUNE_EVERY = 64  # writes between two checks of the folder's size
_ENV_DIR = "SHAPESENSE_CACHE_DIR"
_ENV_MAX = "SHAPESENSE_CACHE_MAX_MB"
_ENV_SWITCH = "SHAPESENSE_CACHE"  # "off": neither read nor write


def _schema() -> str:
    """What an entry depends on besides the text: this format, the IR classes and the code
    that parses and lowers (a changed lowering must not be served from an old entry), the
    parso and Python versions (the grammar)."""
    import parso

    h = hashlib.blake2b(digest_size=10)
    h.update(f"{FORMAT}|{parso.__version__}|{sys.version_info[:2]}".encode())
    for c in CLASSES:
        h.update(f"|{c.__name__}:{','.join(FIELDS[c])}".encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("ir.py", "lower.py", "syntax.py", "ircodec.py", "diskcache.py"):
        try:
            with open(os.path.join(here, name), "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()


SCHEMA = _schema()



class LazyUnit(ir.Unit):
    """A function unit restored from the cache, decoded the first time one of its fields is
    read (by `load()` -> (body, params, spans, digest, line_shift)): a model file reaches a
    few defs of each library module it imports, and decoding every body would cost as much
    as the rest of a warm open."""

    def __init__(self, key: str, anchor, load):  # (not the dataclass __init__)
        self.key, self.kind, self.anchor = key, "function", anchor
        self.stamp = next(lower._STAMPS)
        self.header = None  # (line, col, line, col) of its name, known without decoding
        self._load = load

    def span(self, nid):
        header = self.header
        if nid == ir.HEADER_NID and header is not None and "_load" in self.__dict__ \
                and all(type(x) is int for x in header):
            # (a restored unit's lines are its segment's: line_shift is 0)
            off = self.anchor.offset
            return ((header[0] + off, header[1]), (header[2] + off, header[3]))
        return super().span(nid)

    def _get(self, name: str):
        d = self.__dict__
        if "_load" in d:
            load = d.pop("_load")
            try:
                d["_body"], d["_params"], d["_spans"], d["_digest"], d["_line_shift"] = load()
            except BaseException:
                d["_load"] = load
                raise
        return d[name]

    def _set(name):  # noqa: N805 - a helper of the class body
        def setter(self, value):
            self._get(name)
            self.__dict__[name] = value
        return setter

    body = property(lambda self: self._get("_body"), _set("_body"))
    params = property(lambda self: self._get("_params"), _set("_params"))
    spans = property(lambda self: self._get("_spans"), _set("_spans"))
    digest = property(lambda self: self._get("_digest"), _set("_digest"))
    line_shift = property(lambda self: self._get("_line_shift"), _set("_line_shift"))
    del _set


def _decoded_unit(key: str, raw: list, anchor) -> LazyUnit:
    def load():
        body, params, spans = raw
        body, params = decode(body), decode(params)
        if type(body) is not tuple or type(params) is not tuple:
            raise CorruptEntry("unit")
        return body, params, spans_in(spans), lower._digest((body, params)), 0

    unit = LazyUnit(key, anchor, load)
    spans = raw[2]
    if type(spans) is list and len(spans) % 5 == 0:
        nids = spans[::5]
        if ir.HEADER_NID in nids:  # where the def's name is: read for every def that runs
            k = 5 * nids.index(ir.HEADER_NID)
            unit.header = tuple(spans[k + 1:k + 5])
    return unit


# -- entries ---------------------------------------------------------------------------------
def _capture(tree, lower_cache: dict) -> dict:
    """What is stored for a file, as references to its (immutable) IR and span tables: per
    segment its place and its lowering, and the lowering cache's defs (their code is re-read
    from the text). Cheap: the encoding (`_encoded`) can then run later, in another thread,
    whatever edits do to the tree meanwhile. Every line is counted from the segment's first
    line (the numbering of a lazy segment, parsed alone)."""
    segments, index = [], {}
    for n, seg in enumerate(tree.segments):
        low = seg.lowered
        if low is None or low.ident is None:
            raise TypeError("a segment that is not lowered")
        delta = seg.offset - (seg.start - 1)
        units = []
        for key, unit in low.fn_units.items():
            if unit.anchor is not seg:
                raise TypeError("a unit anchored elsewhere")
            index[id(unit)] = (n, key)
            units.append((key, unit.body, unit.params, unit.spans, delta + unit.line_shift))
        segments.append((seg.start, seg.end, low.skeleton.hex(), low.ident[0], low.ident[1], low.base,
                         low.body, low.spans, delta, units))
    defs = []
    for key, (code, units, start) in lower_cache.items():
        own = units.get(key)
        where = index.get(id(own))
        if where is None or any(id(u) not in index for u in units.values()):
            continue  # an entry of an older text: not needed to restore this one
        seg = tree.segments[where[0]]
        line = start[0] + own.line_shift + seg.offset - (seg.start - 1)
        defs.append([key, where[0], line, start[1], code.count("\n"), len(code), sorted(units)])
    return {"segments": segments, "defs": defs}


def _encoded(captured: dict) -> dict:
    """The JSON form of a captured entry."""
    segments = []
    for start, end, skeleton, k, salt, base, body, spans, delta, units in captured["segments"]:
        segments.append([start, end, skeleton, k, salt, base, encode(body), spans_out(spans, delta),
                         [[key, encode(ubody), encode(params), spans_out(uspans, shift)]
                          for key, ubody, params, uspans, shift in units]])
    return {"segments": segments, "defs": captured["defs"]}


def _restore(tree, lower_cache: dict, text: str, entry: dict, lazy: bool = False) -> None:
    """Fill an empty SyntaxTree and lowering cache from an entry (raises CorruptEntry).
    `lazy`: function units are decoded when first read (library files, where most defs are
    never reached; every def of a workspace file is analysed, so it is decoded now)."""
    lines = split_lines(text, keepends=True)
    segs = []
    at = 1
    units_by_key: dict = {}
    for item in entry["segments"]:
        start, end, skeleton, k, salt, base, body, spans, units = item
        if start != at or not (type(end) is int and end > start) or not all(type(x) is int for x in (k, salt, base)):
            raise CorruptEntry("segments do not tile the file")
        at = end
        seg = Segment(None, start, end, start - 1, tree)
        low = lower._SegmentIR(bytes.fromhex(skeleton))
        low.ident, low.base = (k, salt), base
        low.body = decode(body)
        if type(low.body) is not tuple:
            raise CorruptEntry("segment body")
        low.spans = spans_in(spans)
        for key, ubody, params, uspans in units:
            if type(key) is not str:
                raise CorruptEntry("unit")
            unit = _decoded_unit(key, [ubody, params, uspans], seg) if lazy else ir.Unit(
                key, "function", decode(ubody), decode(params), spans_in(uspans), "", 0, next(lower._STAMPS), seg)
            if not lazy:
                if type(unit.body) is not tuple or type(unit.params) is not tuple:
                    raise CorruptEntry("unit")
                unit.digest = lower._digest((unit.body, unit.params))
            low.fn_units[key] = unit
            units_by_key[key] = unit
        low.stamp = next(lower._STAMPS)
        seg.lowered = low
        segs.append(seg)
    if at != len(lines) + 1 or not segs:
        raise CorruptEntry("segments do not cover the file")
    cache = {}
    for key, n, line, col, nl, length, keys in entry["defs"]:
        seg = segs[n]
        first = seg.start - 1 + line - 1
        code = "".join(lines[first:first + nl + 1])[col:col + length]
        cache[key] = (code, {k: units_by_key[k] for k in keys}, (line, col))
    tree.segments, tree.lines, tree.text, tree.reparsed_lines = segs, lines, text, 0
    lower_cache.update(cache)


# -- the folder ------------------------------------------------------------------------------
def default_folder() -> str:
    env = os.environ.get(_ENV_DIR)
    if env:
        return os.path.abspath(os.path.expanduser(env))
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return os.path.join(os.environ["LOCALAPPDATA"], "shapesense")
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "shapesense")
    return os.path.join(os.path.expanduser("~"), ".cache", "shapesense")


def _max_bytes() -> int:
    try:
        return max(1, int(os.environ.get(_ENV_MAX, _DEFAULT_MAX_MB))) << 20
    except ValueError:
        return _DEFAULT_MAX_MB << 20


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class UnitCache:
    """Stored lowerings of files, by the hash of their text (see the module doc)."""

    def __init__(self, folder: str | None = None, workspace: str | None = None):
        self.folder = os.path.abspath(folder or default_folder())
        self.units_dir = os.path.join(self.folder, "units")
        # A cache inside the analysed workspace would be read back as the workspace's own
        # (and committed by mistake): refuse it.
        inside = bool(workspace) and _inside(self.folder, workspace)
        if inside:
            log.info("ShapeSense: cache folder %s is inside the workspace; not caching", self.folder)
        self.enabled = not inside and os.environ.get(_ENV_SWITCH, "").lower() != "off"
        self.hits = self.misses = self.writes = 0
        self._pending: dict = {}  # entry path -> captured entry, until write_pending
        self._writes_since_prune = _PRUNE_EVERY - 1  # the first write checks the size

    def _file(self, text: str, bucket: str) -> str:
        h = hashlib.blake2b(SCHEMA.encode() + b"\0" + text.encode("utf-8", "surrogatepass"), digest_size=16)
        name = h.hexdigest()
        return os.path.join(self.units_dir, _safe_bucket(bucket), name[:2], name + ".json")

    def restore(self, tree, lower_cache: dict, text: str, bucket: str = "files", lazy: bool = False) -> bool:
        """Fill an empty tree and lowering cache from the stored entry for `text`; False on
        a miss (nothing changed then). `lazy`: see _restore."""
        if not self.enabled:
            return False
        path = self._file(text, bucket)
        if _WRITER is not None and path in _WRITER.queued:
            _WRITER.drain()  # this process wrote it a moment ago
        try:
            with open(path, "rb") as f:
                data = f.read(_MAX_ENTRY_BYTES + 1)
        except OSError:
            self.misses += 1
            return False
        try:
            entry = _parse_entry(data)
            fresh_cache: dict = {}
            _restore(tree, fresh_cache, text, entry, lazy)
        except (CorruptEntry, ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
            log.info("ShapeSense: ignoring a bad cache entry %s: %s", path, exc)
            tree.segments = tree.lines = tree.text = None
            self.misses += 1
            _remove(path)
            return False
        lower_cache.update(fresh_cache)
        self.hits += 1
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        return True

    def store(self, tree, lower_cache: dict, text: str, bucket: str = "files") -> bool:
        """Keep the entry for `text` (a tree just parsed and lowered) to be written by
        `write_pending` (the host calls it once its analysis is done, so encoding and
        writing never delay a result). False if it cannot be stored."""
        if not self.enabled or tree.segments is None:
            return False
        path = self._file(text, bucket)
        if path in self._pending or os.path.exists(path):
            return True
        try:
            captured = _capture(tree, lower_cache)
        except TypeError as exc:
            log.info("ShapeSense: not caching a file: %s", exc)
            return False
        self._pending[path] = captured
        return True

    def write_pending(self, wait: bool = False) -> None:
        """Write the stored entries, in a background thread (`wait`: here, now)."""
        if not self._pending:
            return
        jobs, self._pending = self._pending, {}
        if wait:
            for path, captured in jobs.items():
                self._write(path, captured)
        else:
            _writer().submit(self, jobs)

    def _write(self, path: str, captured: dict) -> bool:
        try:
            body = json.dumps(_encoded(captured), separators=(",", ":"), ensure_ascii=False,
                              allow_nan=True).encode("utf-8", "surrogatepass")
        except (TypeError, ValueError, RecursionError) as exc:
            log.info("ShapeSense: not caching a file: %s", exc)
            return False
        data = _header(body) + body
        if len(data) > _MAX_ENTRY_BYTES:
            return False
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)  # readers see the whole entry or none
            except BaseException:
                _remove(tmp)
                raise
        except OSError as exc:
            log.info("ShapeSense: cannot write the cache: %s", exc)
            return False
        self.writes += 1
        self._writes_since_prune += 1
        if self._writes_since_prune >= _PRUNE_EVERY:
            self._writes_since_prune = 0
            prune(self.folder, _max_bytes())
        return True


class _Writer:
    """One background thread writing cache entries. It is a daemon (a server that ends
    does not wait for it), and the queue is drained at interpreter exit (`shapesense check`
    exits with its entries written). An entry half written is a temporary file, never an
    entry: entries appear by an atomic rename."""

    def __init__(self):
        self.jobs: queue.Queue = queue.Queue()
        self.queued: set = set()  # entry paths not written yet
        self.lock = threading.Lock()
        threading.Thread(target=self._run, name="shapesense-cache-writer", daemon=True).start()
        atexit.register(self.drain)

    def submit(self, cache: "UnitCache", jobs: dict) -> None:
        with self.lock:
            self.queued.update(jobs)
        self.jobs.put((cache, jobs))

    def _run(self):
        while True:
            cache, jobs = self.jobs.get()
            try:
                for path, captured in jobs.items():
                    try:
                        cache._write(path, captured)
                    except Exception:  # noqa: BLE001 - a cache write must never take anything down
                        log.exception("ShapeSense: cache write failed")
                    with self.lock:
                        self.queued.discard(path)
            finally:
                self.jobs.task_done()

    def drain(self, timeout: float | None = None) -> None:
        if timeout is None:
            self.jobs.join()
            return
        deadline = time.monotonic() + timeout
        while self.jobs.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)


_WRITER: _Writer | None = None
_WRITER_LOCK = threading.Lock()


def _writer() -> _Writer:
    global _WRITER
    with _WRITER_LOCK:
        if _WRITER is None:
            _WRITER = _Writer()
        return _WRITER


def flush(timeout: float | None = None) -> None:
    """Wait until every entry handed to the background writer is written (at most
    `timeout` seconds)."""
    if _WRITER is not None:
        _WRITER.drain(timeout)


def _safe_bucket(bucket: str) -> str:
    name = "".join(ch if ch.isalnum() or ch in "._-+" else "_" for ch in bucket)[:100].lstrip(".")
    return name or "files"


def _header(body: bytes) -> bytes:
    digest = hashlib.blake2b(body, digest_size=16).hexdigest()
    return b"%s %s %s\n" % (_MAGIC, SCHEMA.encode(), digest.encode())


def _parse_entry(data: bytes) -> dict:
    if len(data) > _MAX_ENTRY_BYTES:
        raise CorruptEntry("too large")
    head, sep, body = data.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 3 or parts[0] != _MAGIC:
        raise CorruptEntry("no header")
    if parts[1].decode("ascii", "replace") != SCHEMA:
        raise CorruptEntry("written by another version")
    if hashlib.blake2b(body, digest_size=16).hexdigest().encode() != parts[2]:
        raise CorruptEntry("checksum")
    entry = json.loads(body.decode("utf-8", "surrogatepass"))
    if type(entry) is not dict or type(entry.get("segments")) is not list or type(entry.get("defs")) is not list:
        raise CorruptEntry("layout")
    return entry


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


# -- size, listing, clearing (the `shapesense cache` command) --------------------------------
def _entries(folder: str):
    """(path, size, mtime, bucket) of every entry file under folder/units."""
    units = os.path.join(folder, "units")
    if not os.path.isdir(units) or os.path.islink(units):
        return
    for root, dirs, files in os.walk(units, followlinks=False):
        rel = os.path.relpath(root, units)
        bucket = rel.split(os.sep)[0] if rel != "." else ""
        for name in files:
            if not name.endswith(".json"):
                continue
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            yield path, st.st_size, st.st_mtime, bucket


def prune(folder: str, max_bytes: int) -> int:
    """Remove the least recently used entries until the folder holds at most 80% of
    max_bytes (so pruning is rare). Returns how many were removed."""
    entries = list(_entries(folder))
    total = sum(e[1] for e in entries)
    if total <= max_bytes:
        return 0
    removed = 0
    for path, size, _, _ in sorted(entries, key=lambda e: e[2]):
        if total <= max_bytes * 0.8:
            break
        _remove(path)
        total -= size
        removed += 1
    return removed


def info(folder: str | None = None) -> dict:
    folder = os.path.abspath(folder or default_folder())
    buckets: dict = {}
    total = count = 0
    for _, size, _, bucket in _entries(folder):
        b = buckets.setdefault(bucket, [0, 0])
        b[0] += 1
        b[1] += size
        total += size
        count += 1
    return {"folder": folder, "entries": count, "bytes": total, "max_bytes": _max_bytes(),
            "buckets": {k: {"entries": v[0], "bytes": v[1]} for k, v in sorted(buckets.items())}}


def clear(folder: str | None = None) -> int:
    """Remove every entry (only ShapeSense's own `units/` folder is touched). Returns how
    many entries were removed."""
    folder = os.path.abspath(folder or default_folder())
    removed = 0
    for path, _, _, _ in list(_entries(folder)):
        _remove(path)
        removed += 1
    units = os.path.join(folder, "units")
    for root, dirs, files in os.walk(units, topdown=False, followlinks=False):
        for name in files:
            if name.startswith(".tmp-"):
                _remove(os.path.join(root, name))
        try:
            os.rmdir(root)
        except OSError:
            pass
    return removed


# -- the host's use ---------------------------------------------------------------------------
def lowered_units(cache: UnitCache | None, state, log: list, distribution=None) -> dict:
    """The units of a file (analysis.db's _FileState): restored from the cache the first
    time the file is seen (its tree and lowering cache then come from the entry), else
    parsed and lowered as usual; a file parsed whole for the first time is stored.
    `distribution()`: "name-version" of the library the file belongs to, or None."""
    first = state.tree.segments is None
    bucket = (distribution() if first and cache is not None and distribution else None) or "files"
    restored = first and cache is not None and cache.restore(state.tree, state.lower_cache, state.text, bucket,
                                                             lazy=bucket != "files")
    if restored:
        log.append("cache")
    segments = state.tree.update(state.text, log)
    units = lower.lower_module(segments, state.lower_cache, log, state.tree.lines)
    if first and not restored and cache is not None:
        cache.store(state.tree, state.lower_cache, state.text, bucket)
    return units
