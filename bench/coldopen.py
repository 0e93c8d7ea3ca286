"""Cold open: a fresh server, didOpen -> first publishDiagnostics, with an empty and a warm
disk cache (analysis/diskcache.py), on 3,000-line files.

    python -m bench.coldopen                 # 5 repetitions of each, results in bench/results/
    python -m bench.coldopen --reps 3 --only libs

Files (3,000 lines each, generated at run time into a temporary folder, one workspace each):
  * concrete / annotated / symbolic: bench/gen.py's models (the variants when gen.py has them);
  * libs: the concrete models under imports of torchvision, einops and timm, and a tail that
    builds and calls their blocks (Conv2dNormActivation, SqueezeExcitation, timm's Mlp and
    PatchEmbed, rearrange), so the engine reads those libraries' source (the bench extra
    installs them; they are never imported).

For each file: `first` is a server whose cache folder is empty (a new folder per
repetition: what the very first open costs, parse and lower included, and the cache
written); `warm` is a server whose cache folder holds the file's entries (and the
libraries'), as on every later open. The server is started and waited for until ready (its
"indexed" log line) before the clock starts, like bench/run.py's cold open. In this process
it also times the parse and lowering of each file alone, without and with the cache (the
engine's part of a cold open that the cache removes).

Figures are median / p95 / min over the repetitions, perf_counter, nothing asserted.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # `python bench/coldopen.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "bench"

from bench import gen  # noqa: E402
from bench.lsp import LspClient, ServerError  # noqa: E402
from bench.stats import summarize  # noqa: E402

BENCH = Path(__file__).resolve().parent
SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]
LINES = 3000

LIB_HEAD = '''"""A model file built on installed libraries (generated for the cold-open benchmark)."""
import einops
import timm
import torchvision
from einops import rearrange
from timm.layers import DropPath, Mlp, PatchEmbed
from torchvision.ops import MLP, Conv2dNormActivation, SqueezeExcitation, StochasticDepth
'''

LIB_TAIL = '''

stem = Conv2dNormActivation(3, 16)
s1 = stem(torch.randn(2, 3, 32, 32))
se = SqueezeExcitation(16, 4)
s2 = se(s1)
head = MLP(16, [32, 10])
s3 = head(s2.mean(dim=(2, 3)))
mlp = Mlp(64, 128)
t1 = mlp(torch.randn(2, 10, 64))
patches = PatchEmbed(img_size=32, patch_size=4, in_chans=3, embed_dim=64)
t2 = patches(torch.randn(2, 3, 32, 32))
t3 = rearrange(t2, "b n d -> b d n")
t4 = einops.reduce(t3, "b d n -> b d", "mean")
'''


def files() -> dict[str, str]:
    """label -> text of every benchmarked file."""
    out = {"concrete": gen.generate(LINES).text}
    variant = getattr(gen, "generate_variant", None)
    for name in ("annotated", "symbolic"):
        if variant is not None:
            out[name] = variant(LINES, name).text
    body = gen.generate(LINES - LIB_HEAD.count("\n") - LIB_TAIL.count("\n")).text
    out["libs"] = LIB_HEAD + body + LIB_TAIL
    return out


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc), else None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def open_once(path: Path, text: str, cache_dir: Path, timeout: float) -> tuple[float, float | None]:
    """A fresh server with this cache folder: ready, then didOpen -> first diagnostics.
    Returns (seconds, CPU seconds the server used meanwhile: on a loaded machine the wall
    time is mostly waiting for a core, the CPU time is the work)."""
    env = dict(os.environ, SHAPESENSE_CACHE_DIR=str(cache_dir))
    stderr = path.parent / "server.stderr"
    client = LspClient.spawn(SERVER, cwd=str(path.parent), env=env, stderr_path=str(stderr))  # (in errors)
    try:
        client.initialize(root_uri=path.parent.as_uri(), init_options={"debounceMs": 0}, timeout=timeout)
        client.wait_log("indexed", timeout)
        uri = path.as_uri()
        cpu0 = cpu_seconds(client.pid)
        t0 = client.did_open(uri, text, 1)
        arrival = client.wait_diagnostics(uri, 1, t0, timeout)
        cpu1 = cpu_seconds(client.pid)
        return arrival.t - t0, (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else None
    finally:
        client.close()


def engine_parse_lower(text: str, cache_dir: Path, reps: int) -> dict:
    """In this process: parse + lower of the file alone, without the cache and restored from
    it (analysis.diskcache.lowered_units, as the host calls it)."""
    from shapesense.analysis import diskcache
    from shapesense.analysis.db import _FileState

    def once(cache):
        state = _FileState()
        state.text = text
        gc.collect()
        gc.disable()
        try:
            t, c = time.perf_counter(), time.process_time()
            diskcache.lowered_units(cache, state, [])
            return time.perf_counter() - t, time.process_time() - c
        finally:
            gc.enable()

    cache = diskcache.UnitCache(str(cache_dir))
    plain = [once(None) for _ in range(reps)]
    once(cache)
    cache.write_pending(wait=True)  # the entry (the host writes it after its analysis)
    restored = [once(cache) for _ in range(reps)]
    return {"parse_lower": summarize([w for w, _ in plain]), "parse_lower_cpu": summarize([c for _, c in plain]),
            "restore": summarize([w for w, _ in restored]), "restore_cpu": summarize([c for _, c in restored])}


def run(reps: int, only: list[str] | None, timeout: float, out_dir: Path) -> dict:
    texts = files()
    results: dict = {"reps": reps, "python": sys.version.split()[0], "machine": platform.machine(),
                     "cpus": os.cpu_count(), "load_before": os.getloadavg() if hasattr(os, "getloadavg") else None,
                     "files": {}}
    failures = results["failures"] = []
    tmp = Path(tempfile.mkdtemp(prefix="shapesense-coldopen-"))
    try:
        for label, text in texts.items():
            if only and label not in only:
                continue
            ws = tmp / label
            ws.mkdir()
            path = ws / "model.py"
            path.write_text(text)
            print(f"{label}: {text.count(chr(10))} lines", flush=True)
            runs: dict = {"first": [], "warm": []}
            for kind in runs:
                for rep in range(reps):
                    # first: a new, empty cache folder each time; warm: what the last first
                    # open wrote (the server writes its entries before it exits)
                    folder = tmp / f"cache-{label}-first{rep if kind == 'first' else reps - 1}"
                    try:
                        runs[kind].append(open_once(path, text, folder, timeout))
                    except ServerError as exc:  # counted and shown, the other runs go on
                        failures.append(f"{label} {kind} {rep}: {str(exc).splitlines()[0]} "
                                        f"[{str(exc).strip().splitlines()[-1]}]")
                        print("  FAILED: " + failures[-1], flush=True)
                        continue
                    wall, cpu = runs[kind][-1]
                    print(f"  {kind} open {rep}: {wall * 1000:.0f} ms, server CPU "
                          f"{cpu * 1000 if cpu is not None else float('nan'):.0f} ms", flush=True)
            engine = engine_parse_lower(text, tmp / f"cache-{label}-engine", reps)
            results["files"][label] = {"lines": text.count("\n"), **engine}
            for kind, got in runs.items():
                results["files"][label][f"{kind}_open"] = summarize([w for w, _ in got])
                cpus = [c for _, c in got if c is not None]
                results["files"][label][f"{kind}_open_cpu"] = summarize(cpus)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["load_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "coldopen.json").write_text(json.dumps(results, indent=2))
    (out_dir / "coldopen.md").write_text(table(results))
    return results


def _f(s: dict) -> str:
    return f"{s['median']:.0f} / {s['p95']:.0f} / {s['min']:.0f}" if s.get("n") else "-"


def table(results: dict) -> str:
    lines = [f"Cold open, median / p95 / min in ms over {results['reps']} repetitions "
             f"(load average before {results['load_before']}, after {results['load_after']}).", "",
             "Server CPU: the CPU time the server process used from didOpen to the diagnostics; "
             "in process: this process's CPU time (wall time in brackets).", "",
             "| file | lines | first open (empty cache) | its server CPU | warm open (cache) | its server CPU "
             "| parse + lower, in process | restored from the cache, in process |",
             "|---|---:|---|---|---|---|---|---|"]
    for label, r in results["files"].items():
        lines.append(f"| {label} | {r['lines']} | {_f(r['first_open'])} | {_f(r['first_open_cpu'])} | "
                     f"{_f(r['warm_open'])} | {_f(r['warm_open_cpu'])} | {_f(r['parse_lower_cpu'])} "
                     f"({r['parse_lower']['median']:.0f}) | {_f(r['restore_cpu'])} ({r['restore']['median']:.0f}) |")
    if results.get("failures"):
        lines += ["", "Failed opens (not in the figures):"] + [f"- {f}" for f in results["failures"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", help="comma-separated labels: concrete, annotated, symbolic, libs")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--out", default=str(BENCH / "results"))
    a = ap.parse_args(argv)
    results = run(max(1, a.reps), a.only.split(",") if a.only else None, a.timeout, Path(a.out))
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
