"""How the model summary compares with torchinfo 1.8.0 on the real-world corpus
(docs/realworld.md): per model class the engine summarizes from a call the file makes,
whether its parameter count is torch's, and whether its rows are exactly torchinfo's.

    python3 tools/summary_corpus_eval.py        # after tools/realworld_corpus.py

It uses the comparison of tests/test_summary_torchinfo.py (which checks only that nothing
the summary claims is wrong); this prints how much it gets exactly."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import test_summary_torchinfo as T  # noqa: E402


def main() -> int:
    if (T.CORPUS_ROOT / "site").is_dir():
        sys.path.insert(0, str(T.CORPUS_ROOT / "site"))
    files = sorted(T.CORPUS.glob("*.py"))
    n_files = classes = same_count = unknown_count = exact_rows = 0
    other, inexact = [], []
    for path in files:
        text = path.read_text()
        calls = T.torch_calls(str(path))
        host = T.AnalysisHost(workspace_root=str(path.parent))
        host.set_file(str(path), text)
        counted = False
        for name in T.summary.model_names(host, str(path)):
            s = T.summary.summarize(host, str(path), name)
            if s is None or s.context != "call":
                continue
            shapes = tuple(tuple(T.summary.dim_json(d) for d in t.shape) if getattr(t, "shape", None) is not None
                           else None for t in s.inputs)
            found = calls.get((name, shapes))
            if not found:
                continue
            # Several modules of the class may take these shapes (the attention and the
            # feed-forward PreNorm): the summary is of one of them, the closest.
            best = None
            for module, inputs in found:
                try:
                    want, total, _ = T.torchinfo_rows(module, inputs)
                except Exception:  # noqa: BLE001 - torch fails on this model
                    continue
                score = (s.total_params == total) + (T._as_torchinfo(T.engine_rows(s), want) == want)
                if best is None or score > best[0]:
                    best = (score, want, total)
            if best is None:
                continue
            _, want, total = best
            counted = True
            classes += 1
            if not T._claims(s.total_params):
                unknown_count += 1
            elif s.total_params == total:
                same_count += 1
            else:
                other.append(f"{path.name}:{name} ours {s.total_params}, torch {total}")
            if T._as_torchinfo(T.engine_rows(s), want) == want:
                exact_rows += 1
            else:
                inexact.append(f"{path.name}:{name}")
        n_files += counted
    print(f"{n_files} of {len(files)} files have a model the engine summarizes from a call the file makes")
    print(f"{classes} model classes: {same_count} with torch's parameter count, {unknown_count} unknown or "
          f"symbolic, {len(other)} another; {exact_rows} with exactly torchinfo's rows")
    for line in other:
        print("  another count:", line)
    for line in inexact:
        print("  other rows:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
