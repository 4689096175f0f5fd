"""What `crag eval` measures: answer scores (the rule in `crag.datasets.answers`), recall@k
and percentiles of latencies."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from crag.datasets.answers import contains_answer, normalize, token_f1, tokens

__all__ = [
    "contains_answer",
    "normalize",
    "percentile",
    "recall_at_k",
    "token_f1",
    "tokens",
]


def recall_at_k(ranked_units: Sequence[str | None], gold_unit: str, k: int) -> bool:
    """Whether a chunk of the gold unit is among the first `k` retrieved."""
    return gold_unit in ranked_units[:k]


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100), linear interpolation (numpy's default); NaN when empty."""
    data = sorted(values)
    if not data:
        return math.nan
    pos = (len(data) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)
