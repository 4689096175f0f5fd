"""Local and web strips under one reading budget (the AMBIGUOUS branch).

When the evaluator is not sure, CRAG reads both what the index gave and what web search found.
Refinement keeps `refine.top_k` local strips and web correction `web.top_k` web strips; read
together that is up to six strips, about 320 words on Natural Questions' passages. The small
reader can be distracted by more strips (on SQuAD three kept strips gave more right answers than
five), and every prompt token costs about 15 ms on two cores. `refine.merged_top_k` caps the
strips read together: the best-scored of both kinds — local and web strips are scored by the
same evaluator on the same question — in their reading order (local first, then web).

It is off by default (0): on the NQ tuning part the best 4 and the best 3 read 12 and 20 %
fewer prompt tokens but gave 19 and 18 right answers of 56 against 21 (docs/benchmarks.md,
"Local and web strips under one budget"). It is a latency knob, not a quality one.
"""

from __future__ import annotations

import math

from crag.types import Strip

__all__ = ["merge_budget"]


def _rank(s: Strip) -> float:
    return -math.inf if math.isnan(s.score) else s.score


def merge_budget(local: list[Strip], web: list[Strip], k: int) -> tuple[list[Strip], list[Strip]]:
    """The local and the web strips among the `k` best-scored of both (0: all of them), each
    list in its own order. Ties keep local strips first; an unscored strip ranks last. Only
    strips read *together* share the budget: with no strip of one kind (web search found
    nothing, or the verdict was INCORRECT) the other is read as it was kept."""
    if k <= 0 or not local or not web or len(local) + len(web) <= k:
        return local, web
    tagged = [(s, 0, i) for i, s in enumerate(local)] + [(s, 1, i) for i, s in enumerate(web)]
    best = sorted(tagged, key=lambda t: (-_rank(t[0]), t[1], t[2]))[:k]
    chosen = {(kind, i) for _, kind, i in best}
    return (
        [s for i, s in enumerate(local) if (0, i) in chosen],
        [s for i, s in enumerate(web) if (1, i) in chosen],
    )
