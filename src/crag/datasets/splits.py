"""A fixed split of a passage corpus into a knowledge base, a "web" and a held-out part.

Why: to test correction, crag needs questions whose answer is in the knowledge base, questions
whose answer only the (simulated) web has, and questions whose answer is nowhere — where the
only right reply is a refusal. The split is a pure function of the passage id (SHA-256), so the
tests, `bench/correction.py` and `crag eval` all agree on it without storing anything:
45 % knowledge base, 45 % web, 10 % held out.

A second, independent split keeps the trained evaluator honest: `evaluator_part(key)` puts a
gold passage (NQ) or paragraph (SQuAD) in "train" (70 %), "calibrate" (10 %: where its
thresholds are chosen) or "test" (20 %). The shipped evaluator saw only "train" and
"calibrate"; every benchmark that scores the evaluator, or a pipeline that uses it, should
draw its questions from "test".
"""

from __future__ import annotations

import hashlib
from typing import Literal

__all__ = ["Part", "evaluator_part", "nq_part"]

Part = Literal["kb", "web", "held_out"]


def nq_part(passage_id: str) -> Part:
    """Which part a passage belongs to: 'kb' (45 %), 'web' (45 %) or 'held_out' (10 %)."""
    bucket = _bucket(passage_id, "", 20)
    if bucket < 9:
        return "kb"
    if bucket < 18:
        return "web"
    return "held_out"


def _bucket(key: str, salt: str, n: int) -> int:
    digest = hashlib.sha256(f"{salt}{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % n


def evaluator_part(key: str) -> Literal["train", "calibrate", "test"]:
    """'train' (70 %), 'calibrate' (10 %) or 'test' (20 %), by gold passage/paragraph key."""
    bucket = _bucket(key, "crag-evaluator:", 10)
    return "train" if bucket < 7 else "calibrate" if bucket < 8 else "test"
