"""The choice among candidates (crag.generate.choice): rank order, the check, the refusals."""

from __future__ import annotations

from crag.generate.answer_check import Checked, Verification
from crag.generate.choice import NOT_CORROBORATED, NOT_IN_SOURCES, Choice, choose
from crag.generate.reader import Candidate

ALL = Candidate("Paris [1].", "Paris", 1, 0.30, "all")
ALONE = Candidate("Lyon [2].", "Lyon", 2, 0.60, "alone [2]", read=2)
LOW = Candidate("Nice [3].", "Nice", 3, 0.05, "alone [3]", read=3)


def _choose(found: list[Candidate], passes: set[str], **kw: object) -> tuple[Choice, list[str]]:
    """`choose` with a check that passes the replies in `passes` and refuses the others."""
    notes: list[str] = []
    asked: list[Verification] = []

    def check(reply: str) -> Checked:
        verified = Verification(reply, 1, 0.9 if reply in passes else 0.2, 0.75)
        if reply in passes:
            return Checked(text=reply, verified=verified, notes=[f"passed {reply}"])
        return Checked(reason=f"refused {reply}", verified=verified)

    options = {"read": True, "unsure": True, "corroborate": False, "align_floor": 0.15,
               "prefer_best": 0.05} | kw  # fmt: skip
    choice = choose(found, check, notes, asked, **options)
    return choice, notes


def test_no_candidate_is_a_refusal_for_want_of_an_answer() -> None:
    choice, notes = _choose([], set())
    assert choice.checked is None and choice.candidate is None
    assert choice.reason == NOT_IN_SOURCES
    assert notes == []


def test_the_better_tied_reading_alone_is_checked_first() -> None:
    choice, notes = _choose([ALL, ALONE], {"Lyon [2].", "Paris [1]."})
    assert choice.candidate == ALONE
    assert choice.checked is not None and choice.checked.text == "Lyon [2]."
    assert "answered from the reading of source [2] alone" in notes
    assert notes[0].startswith("candidates: 'Paris' (all, tied 0.30 in [1])")


def test_a_refused_candidate_gives_way_to_the_next() -> None:
    choice, notes = _choose([ALL, ALONE], {"Paris [1]."})
    assert choice.candidate == ALL
    assert not any("alone" in n and n.startswith("answered") for n in notes)


def test_every_candidate_refused_keeps_the_first_reason() -> None:
    choice, _ = _choose([ALL, ALONE], set())
    assert choice.checked is None
    assert choice.reason == "refused Lyon [2]."  # ALONE was checked first


def test_readings_alone_below_the_floor_are_never_checked() -> None:
    choice, notes = _choose([LOW], {"Nice [3]."})
    assert choice.checked is None and choice.reason == NOT_IN_SOURCES
    assert "no reading alone reached the alignment floor 0.15" in notes


def test_corroboration_refuses_what_only_the_reading_of_all_gave() -> None:
    choice, notes = _choose([ALL], {"Paris [1]."}, corroborate=True)
    assert choice.reason == NOT_CORROBORATED
    assert "not corroborated" in notes[-1]
    # ... only where the evaluator was unsure and a source was read alone
    assert _choose([ALL], {"Paris [1]."}, corroborate=True, unsure=False)[0].candidate == ALL
    assert _choose([ALL], {"Paris [1]."}, corroborate=True, read=False)[0].candidate == ALL


def test_each_verification_asked_is_returned() -> None:
    asked: list[Verification] = []
    refusal = Checked(reason="no", verified=Verification("Lyon", 2, 0.1, 0.75))
    answer = Checked(text="Paris [1].", verified=Verification("Paris", 1, 0.8, 0.75))
    replies = {"Lyon [2].": refusal, "Paris [1].": answer}
    choice = choose([ALL, ALONE], replies.__getitem__, [], asked, read=True, unsure=True,
                    corroborate=False, align_floor=0.15, prefer_best=0.05)  # fmt: skip
    assert choice.checked is answer
    assert [v.short for v in asked] == ["Lyon", "Paris"]
