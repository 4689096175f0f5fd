"""The verification cut replayed: what each cut would have answered, from one run's traces.

When the evaluator is not sure, the answer check asks the generator's model whether the
passage holding the answer states it and refuses below `generate.verify_cut`
(`crag.generate.answer_check`). Every verification is in the trace, in the order the
candidates were checked (`Trace.verifications`), so the run's own records say what another
cut would have done:

- the first verified candidate whose P(yes) reaches the cut (or is unknown) is the answer;
- none reaching it: refused;
- a question whose answer was not verified (a CORRECT verdict, plain RAG) or that was refused
  before any verification keeps its outcome at every cut, and so does a candidate that passed
  its verification and was refused for another reason.

Two approximations, both named in the report: a candidate that the run never checked (it
came after the one that passed) is not known, so a cut above the run's answer refuses rather
than trying it; and an answer taken from another candidate than the run's is judged by its
short answer alone (the run's answers are judged as `accuracy` judges them, on their whole
text).

So users who label their own questions (`crag eval my.jsonl --collection notes`) choose the cut
on real questions; `crag calibrate --answers`, on generated ones, only raises it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crag.eval.metrics import contains_answer
from crag.trace import Trace, VerificationRecord

__all__ = ["CUTS", "outcome_at", "replay_cuts"]

# The cuts shown: 0.5 (yes as likely as no) to 0.95, and the run's own cut.
CUTS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def _outcome(record: dict[str, Any], checks: list[VerificationRecord], cut: float) -> str:
    """The outcome of `record` at `cut`: right, wrong or refused (module docstring).

    The candidates a cut can change are those the run's cut refused, in the order checked,
    then the run's answer when it was verified (checked last: the run stopped there). A check
    that passed without becoming the answer was refused for another reason (its citation, a
    contact detail): no cut changes that."""
    gold, language = record.get("answers") or [], record.get("language", "en")
    refused = bool(record["refused"])
    answered = not refused and bool(checks) and checks[-1].passed
    failed = [v for v in (checks[:-1] if answered else checks) if not v.passed]
    for v in failed:
        if v.p_yes is not None and v.p_yes >= cut:
            return "right" if contains_answer(v.short, gold, language) else "wrong"
    if answered and (checks[-1].p_yes is None or checks[-1].p_yes >= cut):
        answered_right = contains_answer(record["answer"], gold, language)
    elif refused or answered:  # refused at the run's cut, or at this one
        return "refused"
    else:  # not verified: as it was
        answered_right = contains_answer(record["answer"], gold, language)
    return "right" if answered_right else "wrong"


def outcome_at(record: dict[str, Any], cut: float) -> str:
    """The outcome (right, wrong or refused) of a stored eval record had the cut been `cut`."""
    checks = list(Trace.model_validate(record["trace"]).verifications)
    return _outcome(record, checks, cut)


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
