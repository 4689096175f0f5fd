"""The choice among crag's candidate answers: the first, in rank order, that passes the check.

The readings (`crag.generate.reader`) give candidates; `rank` orders them by how closely their
source ties the answer to the question; the answer check (`crag.generate.answer_check`) then
decides, one candidate at a time, whether the sources hold the answer. The choice is kept
apart from the generator that calls the model, so that it can be read, and tested, as the rule
it is: no model call happens here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from crag.generate.answer_check import Checked, Verification
from crag.generate.reader import Candidate, rank

__all__ = ["NOT_CORROBORATED", "NOT_IN_SOURCES", "Choice", "choose"]

NOT_IN_SOURCES = "no answer to the question was found in the retrieved sources"
NOT_CORROBORATED = "the best source, read on its own, does not give the answer"


@dataclass(frozen=True, slots=True)
class Choice:
    """The candidate chosen and its check, or (both None) the reason to refuse."""

    candidate: Candidate | None = None
    checked: Checked | None = None
    reason: str = NOT_IN_SOURCES


def _only_all(found: list[Candidate]) -> bool:
    """Every candidate came from the reading of all sources: no reading alone gave one."""
    return all(c.reading == "all" for c in found)


def choose(
    found: list[Candidate],
    check: Callable[[str], Checked],
    notes: list[str],
    asked: list[Verification],
    *,
    read: bool,
    unsure: bool,
    corroborate: bool,
    align_floor: float,
    prefer_best: float,
) -> Choice:
    """The first of the ranked candidates whose reply `check` passes.

    `read`: some source was read alone (corroboration needs one to have declined); `unsure`:
    the evaluator did not say CORRECT. `notes` receives what was decided and why; `asked`
    each verification the checks asked."""
    if not found:
        return Choice()
    notes.append("candidates: " + "; ".join(
        f"{c.short!r} ({c.reading}, tied {c.alignment:.2f} in [{c.source}])" for c in found
    ))  # fmt: skip
    if corroborate and unsure and read and _only_all(found):
        notes.append("the best source read alone gave no answer: not corroborated")
        return Choice(reason=NOT_CORROBORATED)
    ranked = rank(found, align_floor, prefer_best)
    if not ranked:
        notes.append(f"no reading alone reached the alignment floor {align_floor:.2f}")
        return Choice()
    reason = ""
    for cand in ranked:
        checked = check(cand.reply)
        notes += checked.notes
        if checked.verified:
            asked.append(checked.verified)
        if checked.reason:
            reason = reason or checked.reason
            continue
        if cand.reading != "all":
            notes.append(f"answered from the reading of source [{cand.read}] alone")
        return Choice(cand, checked, "")
    return Choice(reason=reason)
