"""The evaluate node escalates an AMBIGUOUS verdict, and what follows reads the new verdict.

Components are scripted (a fixed evaluator, a judge returning a given P(yes)): the node's
wiring is under test here; the packaged model's judgement in test_pipeline_live.py.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from crag.generate.generated import Generated
from crag.grading.escalation import Escalation
from crag.grading.trigger import ActionTrigger
from crag.modes import Mode
from crag.pipeline.nodes import NODES, NOTHING_FOUND
from crag.pipeline.state import Components, CragState
from crag.refine.strips import Refiner
from crag.trace import Trace, add_trace
from crag.types import Chunk, ScoredChunk, Verdict

SCORES = {"hive": 0.3, "rhine": 0.1}


class Fixed:
    """A scorer giving each passage the score of its first word ("hive ..." → 0.3)."""

    name = "fixed"

    def __init__(self) -> None:
        self.read: list[list[str]] = []

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.read.append(passages)
        return [SCORES.get(p.split()[0], 0.5) for p in passages]


class Judge:
    name = "judge"

    def __init__(self, p_yes: float) -> None:
        self.p_yes = p_yes
        self.read: list[list[str]] = []

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.read.append(passages)
        return [self.p_yes for _ in passages]


CHUNKS = [
    Chunk(id="r", text="rhine flows north", source="a.md", doc_id="d", position=0, start=0, end=17),
    Chunk(id="h", text="hive bees dance", source="a.md", doc_id="d", position=1, start=18, end=33),
]


class Writer:
    """A generator that records how it was asked (the verification floor above all)."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def generate(self, question: str, strips: list[Any], **kw: Any) -> Generated:
        self.asked.append(kw)
        return Generated("An answer [1].", [], False, "en")


def _run(
    judge: Judge | None,
    nodes: tuple[str, ...] = ("retrieve", "rerank", "evaluate"),
    trigger: ActionTrigger | None = None,
    chunks: list[Chunk] = CHUNKS,
):
    components = Components(
        retriever=SimpleNamespace(
            search=lambda q, k=None: [ScoredChunk(c, 1.0 - i / 10) for i, c in enumerate(chunks)]
        ),
        evaluator=Fixed(),
        trigger=trigger or ActionTrigger(upper=0.8, lower=0.2),  # best 0.3: AMBIGUOUS
        refiner=Refiner(Fixed(), mode="excerption", top_k=3),
        generator=cast(Any, Writer()),
        escalation=Escalation(judge, upper=0.9, lower=0.7) if judge else None,
    )
    runtime = cast(Any, SimpleNamespace(context=components, stream_writer=lambda _: None))
    state: CragState = {
        "question": "How do bees dance?",
        "trace": Trace(question="q", mode=Mode.CRAG),
    }
    for node in nodes:
        update = NODES[node](state, runtime)
        trace = add_trace(state["trace"], update.pop("trace"))
        state = cast(CragState, {**state, **update, "trace": trace})
    return state, components


def test_without_escalation_ambiguous_stays() -> None:
    state, _ = _run(None)
    assert state["verdict"] is Verdict.AMBIGUOUS and state["trace"].escalation is None
    assert "escalate" not in state["trace"].stages_ms


def test_a_judge_sure_of_the_best_passage_makes_it_correct() -> None:
    judge = Judge(0.95)
    state, _ = _run(judge)
    t = state["trace"]
    assert judge.read == [["hive bees dance"]]  # the best-scored passage, once
    assert state["verdict"] is Verdict.CORRECT and t.verdict is Verdict.CORRECT
    assert t.escalation is not None
    assert (t.escalation.id, t.escalation.score, t.escalation.p_yes) == ("h", 0.3, 0.95)
    assert t.escalation.verdict is Verdict.CORRECT
    assert "escalate" in t.stages_ms and "evaluate" in t.stages_ms
    assert any("P(yes) 0.95" in n and n.endswith("CORRECT") for n in t.notes)
    # the evaluator's scores are kept, in rank order: the second-ranked chunk scored best
    assert [e.score for e in t.evaluations] == [0.1, 0.3]


def test_the_judge_reads_the_passage_the_evaluator_scored_a_link_by_its_text() -> None:
    linked = Chunk(
        id="h", text="hive bees [dance](https://example.org/waggle)", source="a.md",
        doc_id="d", position=1, start=18, end=63,
    )  # fmt: skip
    judge = Judge(0.95)
    state, components = _run(judge, chunks=[CHUNKS[0], linked])
    assert cast(Fixed, components.evaluator).read == [["rhine flows north", "hive bees dance"]]
    assert judge.read == [["hive bees dance"]]
    assert state["verdict"] is Verdict.CORRECT


def test_a_judge_that_rejects_it_makes_it_incorrect_and_the_refusal_says_so() -> None:
    state, _ = _run(Judge(0.4), ("retrieve", "rerank", "evaluate", "web_search"))
    assert state["verdict"] is Verdict.INCORRECT
    reason = state["refuse_reason"]
    assert reason.startswith(NOTHING_FOUND)
    assert "judged the best retrieved passage not to answer it (P(yes) 0.40, below 0.70)" in reason
    assert "below the 0.20 needed" not in reason  # its score, 0.3, was above lower


def test_a_judge_in_between_leaves_it_ambiguous_with_the_record() -> None:
    state, _ = _run(Judge(0.8))
    assert state["verdict"] is Verdict.AMBIGUOUS
    t = state["trace"]
    assert t.escalation is not None and t.escalation.verdict is Verdict.AMBIGUOUS


GENERATE = ("retrieve", "rerank", "evaluate", "refine", "generate")


def test_an_escalated_correct_is_still_verified_the_evaluators_own_is_not() -> None:
    """The judge read the passage, not the span the reader takes from it: the answer of an
    escalated CORRECT goes through the verification (a floor is passed), as under AMBIGUOUS."""
    state, components = _run(Judge(0.95), GENERATE)
    assert state["verdict"] is Verdict.CORRECT
    assert cast(Writer, components.generator).asked[-1]["evidence_floor"] == 0.2
    own, components = _run(Judge(0.95), GENERATE, ActionTrigger(upper=0.25, lower=0.2))
    assert own["verdict"] is Verdict.CORRECT and own["trace"].escalation is None
    assert cast(Writer, components.generator).asked[-1]["evidence_floor"] is None
