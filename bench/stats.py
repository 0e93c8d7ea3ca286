"""Order statistics for timing samples (seconds in, milliseconds out)."""
from __future__ import annotations

import math
import statistics


def pct(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(xs)
    k = max(1, math.ceil(q / 100 * len(s)))
    return s[k - 1]


def summarize(seconds: list[float]) -> dict:
    """{n, median, p95, max, min, mean} in milliseconds; {"n": 0} if empty."""
    if not seconds:
        return {"n": 0}
    ms = [x * 1000 for x in seconds]
    return {
        "n": len(ms),
        "median": statistics.median(ms),
        "p95": pct(ms, 95),
        "max": max(ms),
        "min": min(ms),
        "mean": statistics.fmean(ms),
    }


def ratio(a: dict, b: dict, key: str = "median") -> float | None:
    if not a.get("n") or not b.get("n") or not b.get(key):
        return None
    return a[key] / b[key]


def fmt_ms(v: float | None) -> str:
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v / 1000:.2f} s"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_triplet(s: dict | None) -> str:
    if not s or not s.get("n"):
        return "-"
    return f"{fmt_ms(s['median'])} / {fmt_ms(s['p95'])} / {fmt_ms(s['max'])}"


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    if r >= 10:
        return f"{r:.0f}x"
    if r >= 0.1:
        return f"{r:.2f}x"
    return f"1/{1 / r:.0f}" if r > 0 else "0"
