"""The verification cut replayed: what each cut would have answered, from one run's traces.

When the evaluator is not sure, the answer check asks the generator's model whether the
passage holding the answer states it and refuses below `generate.verify_cut`
(`crag.generate.answer_check`). Every verification is in the trace, in the order the
candidates were checked (`Trace.verifications`), so the run's own records say what another
cut would have done:

- the first verified candidate whose P(yes) reaches the cut (or is unknown) is the answer;
- none reaching it: refused;
- a question whose answer was not verified (a CORRECT verdict, plain RAG) or that was refused
  before any verification keeps its outcome at every cut.

Two approximations, both named in the report: a candidate that the run never checked (it
came after the one that passed) is not known, so a cut above the run's answer refuses rather
than trying it; and an answer taken from another candidate than the run's is judged by its
short answer alone (the run's answers are judged as `accuracy` judges them, on their whole
text).

So users who label their own questions (`crag eval my.jsonl --collection notes`) choose the cut
on real questions, beside `crag calibrate --answers`, which chooses it on generated ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crag.eval.metrics import contains_answer
from crag.trace import Trace, VerificationRecord

__all__ = ["CUTS", "replay_cuts"]

# The cuts shown: 0.5 (yes as likely as no) to 0.95, and the run's own cut.
CUTS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def _first_passing(checks: Sequence[VerificationRecord], cut: float) -> int | None:
    """Index of the first candidate that passes `cut` (unknown P(yes) always passes)."""
    for i, v in enumerate(checks):
        if v.p_yes is None or v.p_yes >= cut:
            return i
    return None


def _outcome(record: dict[str, Any], checks: list[VerificationRecord], cut: float) -> str:
    """ "right", "wrong" or "refused" for `record` at `cut` (see the module docstring)."""
    gold, language = record.get("answers") or [], record.get("language", "en")
    refused = bool(record["refused"])
    if not checks or (not refused and not checks[-1].passed):
        # not verified (or an answer the verification did not decide): as it was
        keep = not refused and contains_answer(record["answer"], gold, language)
        return "refused" if refused else ("right" if keep else "wrong")
    i = _first_passing(checks, cut)
    if i is None:
        return "refused"
    if not refused and i == len(checks) - 1:  # the run's own answer
        return "right" if contains_answer(record["answer"], gold, language) else "wrong"
    return "right" if contains_answer(checks[i].short, gold, language) else "wrong"


def replay_cuts(
    records: Sequence[dict[str, Any]], expects: Any, cuts: Sequence[float] = CUTS
) -> dict[str, Any] | None:
    """For each cut: right / wrong / refused among the questions that expect an answer
    (`expects(record)`), and answered among those that do not. None when no record holds a
    verification (no crag mode, `generate.verify` off)."""
    traces = [Trace.model_validate(r["trace"]) for r in records]
    checked = [list(t.verifications) for t in traces]
    run_cuts = {v.cut for c in checked for v in c}
    if not run_cuts:
        return None
    points = []
    for cut in sorted({*cuts, *run_cuts}):
        yes = [0, 0, 0]  # right, wrong, refused
        no = [0, 0]  # answered, refused
        for record, checks in zip(records, checked, strict=True):
            got = _outcome(record, checks, cut)
            if expects(record):
                yes[("right", "wrong", "refused").index(got)] += 1
            else:
                no[got == "refused"] += 1
        points.append(
            {
                "cut": cut,
                "right": yes[0],
                "wrong": yes[1],
                "refused": yes[2],
                "should_refuse_answered": no[0],
                "should_refuse": sum(no),
            }
        )
    return {
        "run_cut": sorted(run_cuts),
        "verified": sum(bool(c) for c in checked),
        "points": points,
    }
