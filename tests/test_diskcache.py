"""The disk cache of lowered files (analysis.diskcache): an analysis from the cache equals one
without it, edits after a restore equal a full parse, and a bad entry is ignored."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from shapesense.analysis import diskcache
from shapesense.analysis.db import AnalysisHost, EngineSettings
from shapesense.analysis.syntax import SyntaxTree

from .test_syntax import PIECES, _dump, _full

ROOT = Path(__file__).parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.py"))
SOME = [p for p in SAMPLES if p.name in {"resnet_block.py", "lenet_wrong_linear.py", "transformer_lm.py", "unet.py",
                                         "vit_nodriver.py", "library_idioms.py", "einops_attention.py"}]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SHAPESENSE_CACHE_DIR", str(folder))
    return folder


def _snapshot(result):
    return list(result.facts), list(result.diagnostics)  # every field of each


def _analyze(path, text, cache, **kw):
    host = AnalysisHost(EngineSettings(disk_cache=cache, **kw), **({"workspace_root": str(Path(path).parent)}))
    host.set_file(path, text)
    result = host.analyze(path)
    diskcache.flush()  # entries are written in the background once a result is ready
    return host, result


@pytest.mark.parametrize("sample", SOME, ids=lambda p: p.name)
def test_a_file_from_the_cache_gives_every_fact_and_diagnostic_as_without_it(sample, cache_dir):
    text = sample.read_text()
    _, plain = _analyze(str(sample), text, False)
    first, cold = _analyze(str(sample), text, True)
    assert first.unit_cache.writes == 1 and "parse" in first.query_log
    second, warm = _analyze(str(sample), text, True)
    assert second.unit_cache.hits == 1 and "cache" in second.query_log and "parse" not in second.query_log
    assert _snapshot(plain) == _snapshot(cold) == _snapshot(warm)
    assert plain.facts  # the comparison is about something
    # the units themselves: same IR, same digests, same spans
    a, b = first.units(str(sample)), second.units(str(sample))
    assert a.keys() == b.keys()
    for key in a:
        assert (a[key].body, a[key].params, a[key].digest) == (b[key].body, b[key].params, b[key].digest), key
        nids = {n for n in getattr(a[key].spans, "keys", lambda: [])()}
        assert all(a[key].span(n) == b[key].span(n) for n in nids), key


def test_edits_after_a_restore_equal_a_fresh_analysis(cache_dir):
    sample = ROOT / "samples" / "resnet_block.py"
    text = sample.read_text()
    _analyze(str(sample), text, True)  # writes the entry
    host, _ = _analyze(str(sample), text, True)
    assert host.unit_cache.hits == 1
    edits = [("        out = self.bn2(out)\n", "        out = self.bn2(out) * 1\n"),
             ("import torch\n", "import torch\n# a comment\n"),
             ("(", "(("), ("((", "(")]
    for old, new in edits:
        if old not in text:
            continue
        text = text.replace(old, new, 1)
        host.set_file(str(sample), text)
        edited = host.analyze(str(sample))
        _, fresh = _analyze(str(sample), text, False)
        assert _snapshot(edited) == _snapshot(fresh), new


@pytest.mark.parametrize("sample", SAMPLES[:12], ids=lambda p: p.name)
def test_random_edits_on_a_restored_tree_reparse_like_a_full_parse(sample, cache_dir):
    """Segments restored without parse trees are parsed alone when an edit needs them: the
    result is node for node what a full parse of the edited text gives."""
    rnd = random.Random(sample.name)
    original = sample.read_text()
    cache = diskcache.UnitCache()
    tree = SyntaxTree()
    tree.update(original)
    from shapesense.analysis.lower import lower_module

    lower_cache: dict = {}
    lower_module(tree.segments, lower_cache, None, tree.lines)
    assert cache.store(tree, lower_cache, original)
    cache.write_pending(wait=True)
    for _ in range(30):
        text = original
        tree = SyntaxTree()
        assert cache.restore(tree, {}, text)
        assert all(seg._nodes is None for seg in tree.segments)
        for _ in range(rnd.choice([1, 1, 2, 3])):  # compared after the last (which parses all)
            a = rnd.randrange(len(text) + 1)
            b = min(len(text), a + rnd.choice([0, 0, 1, 2, 5, 20, 200]))
            text = text[:a] + rnd.choice(PIECES) + text[b:]
            tree.update(text)
        assert _dump(tree.segments) == _full(text), text


def _entry_files(folder):
    return sorted(Path(folder).rglob("*.json"))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "other_schema", "tampered", "empty"])
def test_a_bad_cache_entry_is_ignored_and_removed(damage, cache_dir):
    sample = ROOT / "samples" / "resnet_block.py"
    text = sample.read_text()
    _, plain = _analyze(str(sample), text, False)
    _analyze(str(sample), text, True)
    [entry] = _entry_files(cache_dir)
    data = entry.read_bytes()
    head, _, body = data.partition(b"\n")
    if damage == "garbage":
        data = os.urandom(4096)
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "flipped":
        i = len(data) - 100
        data = data[:i] + bytes([data[i] ^ 0x20]) + data[i + 1:]
    elif damage == "other_schema":
        magic, _, digest = head.split(b" ")
        data = b" ".join([magic, b"0" * 20, digest]) + b"\n" + body
    elif damage == "tampered":  # well-formed, checksum recomputed, but not a valid entry
        parsed = json.loads(body)
        parsed["segments"][0][6] = [999, "x"]  # an unknown IR class tag
        body = json.dumps(parsed).encode()
        data = diskcache._header(body) + body
    elif damage == "empty":
        data = b""
    entry.write_bytes(data)
    host, result = _analyze(str(sample), text, True)
    assert host.unit_cache.hits == 0 and "parse" in host.query_log
    assert _snapshot(result) == _snapshot(plain)
    # the bad entry is gone and a good one was written in its place
    [again] = _entry_files(cache_dir)
    assert again.read_bytes() != data
    host, result = _analyze(str(sample), text, True)
    assert host.unit_cache.hits == 1 and _snapshot(result) == _snapshot(plain)


def test_an_entry_written_in_the_background_is_read_back_by_the_same_process(cache_dir):
    sample = ROOT / "samples" / "unet.py"
    text = sample.read_text()
    host = AnalysisHost(EngineSettings(disk_cache=True))
    host.set_file(str(sample), text)
    cold = host.analyze(str(sample))  # hands the entry to the writer thread
    again = AnalysisHost(EngineSettings(disk_cache=True))
    again.set_file(str(sample), text)
    warm = again.analyze(str(sample))  # waits for that write rather than missing it
    assert again.unit_cache.hits == 1 and _snapshot(cold) == _snapshot(warm)


def test_decoding_accepts_only_the_ir_classes():
    for bad in ([], ["x"], [3], [999], [8], {"a": 1}, [0, {"a": 1}], [2, "1", 2]):
        with pytest.raises(diskcache.CorruptEntry):
            diskcache.decode(bad)
    from shapesense.analysis import ir

    node = ir.Call(3, ir.Name(1, "f"), (ir.Arg(ir.Const(2, 1.5 + 2j)), ir.Arg(ir.Const(4, ...), "k")))
    assert diskcache.decode(json.loads(json.dumps(diskcache.encode(node)))) == node


def test_the_cache_is_never_inside_the_workspace(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("SHAPESENSE_CACHE_DIR", str(ws / ".cache"))
    path = ws / "m.py"
    text = "import torch\nx = torch.randn(2, 3)\n"
    host = AnalysisHost(EngineSettings(disk_cache=True), workspace_root=str(ws))
    host.set_file(str(path), text)
    host.analyze(str(path))
    assert not host.unit_cache.enabled and not (ws / ".cache").exists()


def test_default_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("SHAPESENSE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.default_folder() == str(tmp_path / "xdg" / "shapesense")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diskcache.default_folder() == str(tmp_path / "home" / ".cache" / "shapesense")
    monkeypatch.setenv("SHAPESENSE_CACHE_DIR", str(tmp_path / "mine"))
    assert diskcache.default_folder() == str(tmp_path / "mine")


def test_prune_removes_the_least_recently_used_entries(cache_dir):
    cache = diskcache.UnitCache()
    texts = [f"import torch\nx{i} = torch.zeros({i}, 2)\n" * 40 for i in range(6)]
    for n, text in enumerate(texts):
        host = AnalysisHost(EngineSettings(disk_cache=True))
        host.unit_cache = cache
        host.set_file(f"/m{n}.py", text)
        host.analyze(f"/m{n}.py")
    diskcache.flush()
    entries = _entry_files(cache_dir)
    assert len(entries) == 6
    for n, e in enumerate(sorted(entries, key=lambda p: p.stat().st_mtime)):
        os.utime(e, (1_000_000 + n, 1_000_000 + n))
    oldest = min(entries, key=lambda p: p.stat().st_mtime)
    size = sum(e.stat().st_size for e in entries)
    assert diskcache.prune(str(cache_dir), size - 1) >= 1
    assert not oldest.exists() and len(_entry_files(cache_dir)) < 6
    assert sum(e.stat().st_size for e in _entry_files(cache_dir)) <= (size - 1) * 0.8


def test_library_files_are_filed_by_distribution_and_version(tmp_path, cache_dir):
    site = tmp_path / "site"
    pkg = site / "blocklib"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .blocks import Block\n")
    (pkg / "blocks.py").write_text("import torch.nn as nn\n\n\nclass Block(nn.Module):\n"
                                   "    def __init__(self, a, b):\n        super().__init__()\n"
                                   "        self.fc = nn.Linear(a, b)\n\n"
                                   "    def forward(self, x):\n        return self.fc(x)\n")
    info = site / "blocklib-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: blocklib\nVersion: 1.2.3\nRequires-Dist: torch\n")
    (info / "RECORD").write_text("blocklib/__init__.py,,\nblocklib/blocks.py,,\n")
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir()
    text = "import torch\nfrom blocklib import Block\n\ny = Block(8, 16)(torch.randn(4, 8))\n"
    results = []
    for cache in (False, True, True):
        host, result = _analyze(str(user), text, cache, library_paths=(str(site),))
        results.append(_snapshot(result))
    assert results[0] == results[1] == results[2]
    assert any(f.text == "y" and f.shape == "Tensor[4, 16]" for f in result.facts)
    assert host.unit_cache.hits >= 2  # the user's file and the library's
    buckets = {p.relative_to(cache_dir / "units").parts[0] for p in _entry_files(cache_dir)}
    assert buckets == {"blocklib-1.2.3", "files"}


def _cli(*args, env):
    return subprocess.run([sys.executable, "-m", "shapesense", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cache_command_shows_and_clears_the_cache(tmp_path, cache_dir):
    model = tmp_path / "model.py"
    model.write_text("import torch\nx = torch.randn(2, 3)\ny = x.view(6)\n")
    env = dict(os.environ, SHAPESENSE_CACHE_DIR=str(cache_dir))
    check = _cli("check", str(model), env=env)
    assert check.returncode == 0, check.stderr
    assert _entry_files(cache_dir)
    shown = _cli("cache", "info", env=env)
    assert shown.returncode == 0, shown.stderr
    assert str(cache_dir) in shown.stdout and "1 entr" in shown.stdout
    as_json = json.loads(_cli("cache", "info", "--json", env=env).stdout)
    assert as_json["entries"] == 1 and as_json["folder"] == str(cache_dir)
    cleared = _cli("cache", "clear", env=env)
    assert cleared.returncode == 0 and "removed 1" in cleared.stdout
    assert not _entry_files(cache_dir)
    (cache_dir / "keep.txt").write_text("not ours")
    _cli("cache", "clear", env=env)
    assert (cache_dir / "keep.txt").exists()  # only the cache's own entries are removed


# -- a library restored from the cache: bodies decoded when a call reaches them --------------------------------------
LIB = '''"""A library module: a few blocks, defs nested in defs and in an if."""
import torch
import torch.nn as nn


def make_divisible(v, divisor=8):
    """Round v up to a multiple of divisor."""
    return max(divisor, (v + divisor - 1) // divisor * divisor)


class Block(nn.Module):
    def __init__(self, a, b, hidden=None):
        super().__init__()
        hidden = hidden or make_divisible(a * 2)
        self.fc1 = nn.Linear(a, hidden)
        self.fc2 = nn.Linear(hidden, b)

    def forward(self, x):
        def act(t):
            return torch.relu(t)

        scale = (lambda t: t * 2)
        return self.fc2(scale(act(self.fc1(x))))

    def extra(self): return 1

    def wide(self,
             x): return x


async def fetch():
    return 1


if torch.__version__:
    def helper(x):
        y = x.view(x.shape[0], -1)
        return y
'''

USE = '''import torch
from lazylib import Block, helper

y = Block(8, 16)(torch.randn(4, 8))
z = helper(torch.randn(2, 3, 4))
bad = Block(8, 16)(torch.randn(4, 9))
'''


def _lib_site(tmp_path, text=LIB):
    site = tmp_path / "site"
    (site / "lazylib").mkdir(parents=True)
    (site / "lazylib" / "__init__.py").write_text(text)
    info = site / "lazylib-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: lazylib\nVersion: 0.1\nRequires-Dist: torch\n")
    (info / "RECORD").write_text("lazylib/__init__.py,,\n")
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir()
    user.write_text(USE)
    return site, user


def test_library_results_are_the_same_restored_from_the_cache(tmp_path, cache_dir):
    site, user = _lib_site(tmp_path)
    _, whole = _analyze(str(user), USE, False, library_paths=(str(site),))
    _, cold = _analyze(str(user), USE, True, library_paths=(str(site),))
    warm_host, warm = _analyze(str(user), USE, True, library_paths=(str(site),))
    assert warm_host.unit_cache.hits == 2
    lib_units = warm_host.units(str(site / "lazylib" / "__init__.py"))
    lazy = [u for u in lib_units.values() if isinstance(u, diskcache.LazyUnit)]
    assert lazy and any("_load" in u.__dict__ for u in lazy)  # some never read: never decoded
    assert _snapshot(whole) == _snapshot(cold) == _snapshot(warm)
    shapes = {f.text: f.shape for f in whole.facts if f.is_target}
    assert shapes["y"] == "Tensor[4, 16]" and shapes["z"] == "Tensor[2, 12]"
    [error] = [d for d in whole.diagnostics if d.severity == "error"]
    assert error.span.start[0] == USE.splitlines().index("bad = Block(8, 16)(torch.randn(4, 9))")
    # the library line in the related information is where the Linear is applied
    lib_lines = LIB.splitlines()
    assert any(r.path and r.path.endswith("__init__.py") and "self.fc1(x)" in lib_lines[r.span.start[0]]
               for r in error.related)


def test_a_library_file_restored_from_the_cache_can_change(tmp_path, cache_dir):
    site, user = _lib_site(tmp_path)
    lib = str(site / "lazylib" / "__init__.py")
    _analyze(str(user), USE, True, library_paths=(str(site),))
    host, _ = _analyze(str(user), USE, True, library_paths=(str(site),))
    assert host.unit_cache.hits == 2
    edited = LIB.replace("self.fc2 = nn.Linear(hidden, b)", "self.fc2 = nn.Linear(hidden, b * 2)")
    host.set_file(lib, edited)
    after = host.analyze(str(user))
    (site / "lazylib" / "__init__.py").write_text(edited)
    _, fresh = _analyze(str(user), USE, False, library_paths=(str(site),))
    assert _snapshot(after) == _snapshot(fresh)
    assert {f.text: f.shape for f in fresh.facts if f.is_target}["y"] == "Tensor[4, 32]"


DUPLICATES = '''import torch
import torch.nn as nn


def f(x):
    return x.view(-1)


a = f(torch.randn(2, 3))


def f(x):
    return x.view(2, -1)


b = f(torch.randn(2, 3))

if torch.cuda.is_available():
    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)
else:
    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d * 2)

c = Block(8).fc(torch.randn(4, 8))
g = (lambda t: t.sum(0))(torch.randn(3, 4))
'''


def test_defs_with_one_name_and_lambdas_are_restored_as_lowered(tmp_path, cache_dir):
    path = tmp_path / "ws" / "dup.py"  # (the cache folder is beside the workspace, not in it)
    path.parent.mkdir()
    path.write_text(DUPLICATES)
    _, plain = _analyze(str(path), DUPLICATES, False)
    _analyze(str(path), DUPLICATES, True)
    host, warm = _analyze(str(path), DUPLICATES, True)
    assert host.unit_cache.hits == 1
    assert _snapshot(plain) == _snapshot(warm)
    assert any(f.text == "g" for f in plain.facts)


def test_a_package_named_unlike_its_distribution_is_found_by_top_level_txt(tmp_path):
    from shapesense.analysis.libraries import LibraryResolver

    site = tmp_path / "site"
    (site / "imglib").mkdir(parents=True)
    (site / "imglib" / "__init__.py").write_text("import torch\n")
    info = site / "Pillowish-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: Pillowish\nVersion: 2.0\nRequires-Dist: torch\n")
    (info / "RECORD").write_text("imglib/__init__.py,,\n")
    (info / "top_level.txt").write_text("imglib\n")
    resolver = LibraryResolver((str(site),))
    path = resolver.resolve("imglib")
    assert path and resolver.distribution(path) == "Pillowish-2.0"
    assert resolver._dists == {}  # found without reading every dist-info of the folder
