"""`crag calibrate`'s threshold search on synthetic scores: the budget holds, ties resolve to
the higher threshold, and the degenerate sets (all answerable, all near miss) give sane answers."""

from __future__ import annotations

import math

import pytest

from crag.calibrate.curve import MIN_CUT, Observation, candidates, curve, cut_candidates, point
from crag.calibrate.search import choose_thresholds


def answerable(*scores: float, gold: int | None = 0) -> Observation:
    return Observation(True, scores, tuple(i == gold for i in range(len(scores))))


def near(*scores: float) -> Observation:
    return Observation(False, scores, tuple(False for _ in scores))


def test_separable_scores_split_half_way() -> None:
    obs = [answerable(0.9, 0.1), answerable(0.6), near(0.3, 0.2), near(0.1)]
    c = choose_thresholds(obs, 0.1)
    assert c.lower == pytest.approx(0.45) and c.upper == pytest.approx(0.45)
    assert c.budget_met and c.at_lower["hallucination"] == 0.0
    assert c.at_lower["right_n"] == 2 and c.at_lower["right_of_answered"] == 1.0
    assert c.verdicts["answerable"]["correct"] == 2 and c.verdicts["near_miss"]["incorrect"] == 2


def test_budget_is_respected_and_right_answers_maximised() -> None:
    # 10 near misses spread over 0.05 .. 0.95; answerable gold scores 0.2 .. 0.99
    obs = [near(i / 10 + 0.05) for i in range(10)]
    obs += [answerable(s) for s in (0.2, 0.4, 0.6, 0.8, 0.97, 0.99)]
    for budget in (0.0, 0.1, 0.3, 0.5):
        c = choose_thresholds(obs, budget)
        assert c.at_lower["hallucination"] <= budget + 1e-9
        best = max(p["right_n"] for p in curve(obs) if p["hallucination"] <= budget + 1e-9)
        assert c.at_lower["right_n"] == best
        assert 0.0 <= c.lower <= c.upper <= 1.0
    assert choose_thresholds(obs, 0.1).lower == pytest.approx(0.96)  # one near miss (0.95) in


def test_ties_in_right_answers_go_to_the_higher_threshold() -> None:
    # the near miss at 0.5 costs nothing in right answers to exclude: lower goes above it
    obs = [answerable(0.8), answerable(0.9), near(0.5), near(0.1)]
    c = choose_thresholds(obs, 1.0)  # a budget that allows everything
    assert c.lower == pytest.approx(0.65) and c.at_lower["hallucination"] == 0.0


def test_a_gold_chunk_below_lower_is_not_a_right_answer() -> None:
    # answered (a non-gold chunk scores high), but the chunk with the answer is rejected
    obs = [Observation(True, (0.9, 0.2), (False, True)), near(0.1)]
    at = point(obs, 0.5)
    assert at["answered_n"] == 1 and at["right_n"] == 0
    assert point(obs, 0.15)["right_n"] == 1


def test_upper_needs_precision_from_there_on() -> None:
    # from 0.705 up every CORRECT is right; below, two answerable questions whose gold chunk
    # was not retrieved (0.66) and a near miss (0.65) bring precision under 80 %
    obs = [answerable(s) for s in (0.6, 0.62, 0.75, 0.8, 0.85, 0.9, 0.95)]
    obs += [answerable(0.66, gold=None), answerable(0.66, gold=None)]
    obs += [near(0.65)] + [near(0.1) for _ in range(9)]
    c = choose_thresholds(obs, 0.2)
    assert c.lower == pytest.approx(0.35) and c.at_lower["hallucination"] == pytest.approx(0.1)
    assert c.upper == pytest.approx(0.705)
    assert c.correct_precision == 1.0


def test_all_answerable() -> None:
    c = choose_thresholds([answerable(0.3), answerable(0.6)], 0.1)
    assert c.budget_met and c.near_miss == 0 and c.at_lower["right_n"] == 2
    assert c.lower == pytest.approx(0.0)  # nothing to refuse: answer everything
    assert any("no near-miss" in w for w in c.warnings)


def test_all_near_miss() -> None:
    c = choose_thresholds([near(0.3), near(0.6, 0.1)], 0.1)
    assert c.answerable == 0 and c.at_lower["answered_n"] == 0
    assert c.lower == pytest.approx(0.8) and c.upper == pytest.approx(0.8)
    assert any("no answerable" in w for w in c.warnings)


def test_unscorable_chunks_are_never_rejected() -> None:
    unknown = Observation(False, (math.nan, 0.1), (False, False))
    assert unknown.reach == math.inf and unknown.top == 0.1
    c = choose_thresholds([unknown, answerable(0.9)], 0.1)
    assert not c.budget_met and c.at_lower["hallucination"] == 1.0
    assert any("no threshold keeps" in w for w in c.warnings)
    empty = Observation(False, (), ())
    assert empty.reach == -math.inf and not empty.answered(0.0)


def test_generated_answers_decide_when_given() -> None:
    refused = Observation(True, (0.9,), (True,), generated=False, generated_right=False)
    wrong = Observation(True, (0.9,), (True,), generated=True, generated_right=False)
    right = Observation(True, (0.9,), (True,), generated=True, generated_right=True)
    assert not refused.answered(0.5) and not wrong.right(0.5) and right.right(0.5)


def test_candidates_split_every_pair_of_scores() -> None:
    obs = [answerable(0.2), near(0.4), near(0.4)]
    assert candidates(obs) == [0.0, 0.3, 0.7]
    assert candidates([answerable(1.0)]) == [0.0, 1.0]


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        choose_thresholds([], 0.1)
    with pytest.raises(ValueError):
        choose_thresholds([near(0.1)], 1.5)


def said(answerable_: bool, p: float | None, right: bool = True) -> Observation:
    """A question every threshold lets through, answered, with verification P(yes) `p`."""
    gold = (answerable_,)
    return Observation(answerable_, (0.9,), gold, generated=True, generated_right=right, verified=p)


def test_the_verification_cut_is_fitted_when_answers_were_verified() -> None:
    # right answers at 0.6-0.9, near misses answered at 0.55 and 0.65: a cut between 0.55
    # and 0.6 keeps every right answer and one near miss (within a 50 % budget of 2); the
    # evaluator's scores cannot tell them apart (all 0.9)
    obs = [said(True, p) for p in (0.6, 0.7, 0.8, 0.9)] + [said(False, 0.55), said(False, 0.65)]
    assert cut_candidates(obs) == [0.5, 0.575, 0.625, 0.675, 0.75, 0.85, 0.95]
    c = choose_thresholds(obs, 0.5)
    assert c.verify_cut == pytest.approx(0.575) and c.at_lower["right_n"] == 4
    assert c.at_lower["hallucinated_n"] == 1 and c.budget_met
    # no near miss allowed: the cut above 0.65 costs the 0.6 answer, the least it can
    strict = choose_thresholds(obs, 0.0)
    assert strict.verify_cut == pytest.approx(0.675) and strict.at_lower["right_n"] == 3
    assert {p["cut"] for p in strict.cuts} == set(cut_candidates(obs))
    assert strict.to_json()["verify_cut"] == strict.verify_cut


def test_of_equal_cuts_the_one_answering_fewer_near_misses_and_never_below_one_half() -> None:
    # right answers at 0.85 and 0.9, wrong ones at 0.3 and 0.6: cuts 0.5 and 0.725 both keep
    # the two right answers within a 50 % budget; 0.725 keeps out the 0.6 and wins
    obs = [said(True, 0.9), said(True, 0.85), said(False, 0.3), said(False, 0.6)]
    assert cut_candidates(obs) == [MIN_CUT, 0.725, 0.875, 0.95] and MIN_CUT == 0.5
    c = choose_thresholds(obs, 0.5)
    assert c.verify_cut == pytest.approx(0.725) and c.at_lower["right_n"] == 2
    assert c.at_lower["hallucinated_n"] == 0
    # an answer given without verification (None) is never refused by a cut: a near miss
    # answered so counts against the budget at every cut
    unverified = [*obs, said(False, None, right=False)]
    assert all(point(unverified, 0.0, cut)["hallucinated_n"] >= 1 for cut in (0.5, 0.95))


def test_the_cut_is_only_chosen_from_min_cut_up() -> None:
    # the case above, with the default cut 0.75 as the floor: 0.725 is no longer a candidate
    obs = [said(True, 0.9), said(True, 0.85), said(False, 0.3), said(False, 0.6)]
    assert cut_candidates(obs, 0.75) == [0.75, 0.875, 0.95]
    c = choose_thresholds(obs, 0.5, min_cut=0.75)
    # 0.75 and 0.875 keep both right answers and no near miss: of equals, the lower
    assert c.verify_cut == pytest.approx(0.75) and c.at_lower["right_n"] == 2
    assert cut_candidates(obs, 0.2)[0] == MIN_CUT  # never below one half


def test_without_verified_answers_no_cut_is_chosen() -> None:
    obs = [answerable(0.9), near(0.1)]
    assert cut_candidates(obs) == [] and choose_thresholds(obs, 0.1).verify_cut is None
    unverified = [said(True, None), said(False, None)]
    assert choose_thresholds(unverified, 0.5).verify_cut is None
