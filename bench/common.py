"""Small helpers shared by the benchmark scripts: percentiles, judge metrics (ROC-AUC,
accuracy at a cut), rich tables, JSON results."""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from crag.types import Chunk, Strip

__all__ = [
    "RESULTS_DIR",
    "accuracy",
    "best_cut",
    "console",
    "generator",
    "kept_strips",
    "machine_info",
    "percentile",
    "print_table",
    "roc_auc",
    "run_args",
    "write_results",
]

RESULTS_DIR = Path(__file__).resolve().parent / "results"
# Wide enough for the tables when the output goes to a log file (rich defaults to 80 there).
console = Console() if sys.stdout.isatty() else Console(width=140)


def run_args(doc: str | None, limit: int = 100) -> argparse.Namespace:
    """The arguments of a bench that reads a finished `crag eval` run again: its directory
    (`run`) and how many of its questions (`--limit`). `doc`: the script's docstring."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--limit", type=int, default=limit)
    return parser.parse_args()


def generator() -> Any:
    """The configured generator's model (the packaged 1.5B by default), as crag builds it.
    Imported late: loading the pipeline's modules is slow, and `--help` should not wait."""
    from crag.config import Settings
    from crag.pipeline.build import make_roles

    return make_roles(Settings(), ("generator",))["generator"]


def kept_strips(trace: dict[str, Any]) -> list[Strip]:
    """The local strips a stored trace says the generator read, rebuilt in reading order (their
    chunk carries only its id): what the answer check numbered as sources."""
    return [
        Strip(s["text"], Chunk(s["chunk_id"], s["text"], "", "", 0, 0, 0), i, s["score"])
        for i, s in enumerate(trace["strips"])
        if s["kept"]
    ]


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation (numpy's default); NaN if empty."""
    data = sorted(values)
    if not data:
        return math.nan
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be within 0..100, got {q}")
    pos = (len(data) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def roc_auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Probability a random positive outscores a random negative (ties count half); NaN
    without both classes. Rank-sum form: O(n log n), for benches with thousands of pairs."""
    pairs = sorted(zip(scores, labels, strict=True))
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return math.nan
    rank_sum = 0.0
    i = 0
    while i < len(pairs):  # average ranks over ties
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        avg = (i + j + 1) / 2
        rank_sum += avg * sum(y for _, y in pairs[i:j])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def accuracy(scores: Sequence[float], labels: Sequence[int], cut: float) -> float:
    """Share of pairs on the right side of `cut` (score >= cut means "relevant")."""
    return sum((s >= cut) == bool(y) for s, y in zip(scores, labels, strict=True)) / len(labels)


def best_cut(scores: Sequence[float], labels: Sequence[int]) -> tuple[float, float]:
    """(cut, accuracy) at the single cut that scores best: an upper bound for a judge."""
    best = max(sorted(set(scores)), key=lambda c: accuracy(scores, labels, c))
    return best, accuracy(scores, labels, best)


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    caption: str | None = None,
    right_from: int = 1,
) -> Table:
    """Print a rich table; columns from index `right_from` on are right-aligned (figures)."""
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    for i, name in enumerate(columns):
        table.add_column(name, justify="right" if i >= right_from else "left")
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    console.print(table)
    return table


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    """What a timing depends on: CPU count, load, library versions, torch threads."""
    info: dict[str, Any] = {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "python": sys.version.split()[0],
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": {
            d: _version(d)
            for d in ("crag", "torch", "sentence-transformers", "chromadb", "transformers")
        },
    }
    try:
        import torch

        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    return info


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def write_results(name_or_path: str | Path, data: dict[str, Any]) -> Path:
    """Write `data` as JSON to `bench/results/<name>.json`, or to the path given (has a suffix)."""
    target = Path(name_or_path)
    if target.suffix != ".json" and len(target.parts) == 1:
        target = RESULTS_DIR / f"{target}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(_jsonable(data), indent=2, ensure_ascii=False) + "\n")
    return target
