"""A fixed split of a passage corpus into a knowledge base, a "web" and a held-out part.

Why: to test correction, crag needs questions whose answer is in the knowledge base, questions
whose answer only the (simulated) web has, and questions whose answer is nowhere — where the
only right reply is a refusal. The split is a pure function of the passage id (SHA-256), so the
tests, `bench/correction.py` and `crag eval` all agree on it without storing anything:
45 % knowledge base, 45 % web, 10 % held out.
"""

from __future__ import annotations

import hashlib
from typing import Literal

__all__ = ["Part", "nq_part"]

Part = Literal["kb", "web", "held_out"]


def nq_part(passage_id: str) -> Part:
    """Which part a passage belongs to: 'kb' (45 %), 'web' (45 %) or 'held_out' (10 %)."""
    bucket = int.from_bytes(hashlib.sha256(passage_id.encode("utf-8")).digest()[:8], "big") % 20
    if bucket < 9:
        return "kb"
    if bucket < 18:
        return "web"
    return "held_out"
