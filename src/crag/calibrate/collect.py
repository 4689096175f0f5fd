"""The calibration's work loop: a question per sampled chunk, scored in both conditions.

Every step is looked up in the run's journal first and appended to it when done, so a killed
`crag calibrate` resumes where it stopped: a chunk already asked keeps its question, a
rejected chunk stays rejected, and scores (per evaluator) and answers (per evaluator and
generator) are not computed again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crag.calibrate.curve import Observation
from crag.calibrate.journal import Journal
from crag.calibrate.questions import GeneratedQuestion, Rejected, ask_for_question, sample_chunks
from crag.calibrate.scoring import (
    ANSWERABLE,
    CONDITIONS,
    Scored,
    answer_outcome,
    score_question,
)
from crag.datasets.answers import normalize
from crag.types import Chunk

__all__ = ["Collected", "Collector"]


def _probability(value: Any) -> float | None:
    """A journalled P(yes): None (not verified, unknown) or a number in [0, 1]."""
    if isinstance(value, int | float) and 0.0 <= value <= 1.0:
        return float(value)
    return None


@dataclass(slots=True)
class Collected:
    """What the loop did: the chunks with their question records, in the order done."""

    done: list[tuple[Chunk, dict[str, Any]]] = field(default_factory=list)
    tried: int = 0  # chunks looked at
    resumed: int = 0  # questions whose every score the journal already held


class Collector:
    """Questions, scores and (with `answers`) generator outcomes, journalled as they come."""

    def __init__(
        self,
        journal: Journal,
        *,
        index: Any,
        components: Any,
        llm: Any,
        evaluator: str,
        generator: str,
        answers: bool,
        attempts: int,
    ) -> None:
        self.journal, self.index, self.components, self.llm = journal, index, components, llm
        self.evaluator, self.generator = evaluator, generator
        self.answers, self.attempts = answers, attempts
        self.asked = {r["chunk"]: r for r in journal.of("question")}
        self.rejected = {r["chunk"] for r in journal.of("rejected")}
        self.scores = {
            (r["chunk"], r["condition"]): r
            for r in journal.of("scores")
            if r["evaluator"] == evaluator
        }
        # an answer journalled before answers were verified (no "verified") is asked again
        self.outcomes = {
            (r["chunk"], r["condition"]): r
            for r in journal.of("answer")
            if r["evaluator"] == evaluator and r["generator"] == generator and "verified" in r
        }

    def collect(
        self, questions: int, seed: int, max_chunks: int, on_step: Callable[[str], None] | None
    ) -> Collected:
        """Up to `questions` questions from at most `max_chunks` sampled chunks."""
        out = Collected()
        seen: set[str] = set()
        for chunk in sample_chunks(self.index.catalog, seed):
            if len(out.done) >= questions or out.tried >= max_chunks:
                break
            out.tried += 1
            if chunk.id in self.rejected:
                continue
            record = self.asked.get(chunk.id)
            if record is None:
                record = self._ask(chunk, seed + out.tried, seen)
                if record is None:
                    continue
            elif all((chunk.id, c) in self.scores for c in CONDITIONS):
                out.resumed += 1
            seen.add(normalize(record["question"]))
            self._score(chunk, record)
            out.done.append((chunk, record))
            if on_step:
                on_step(record["question"])
        return out

    def _ask(self, chunk: Chunk, seed: int, seen: set[str]) -> dict[str, Any] | None:
        """The question the LLM writes for `chunk` (journalled), None when it gave none."""
        outcome, attempts = ask_for_question(self.llm, chunk, attempts=self.attempts, seed=seed)
        if isinstance(outcome, GeneratedQuestion) and normalize(outcome.question) in seen:
            outcome = Rejected("duplicate question")
        if isinstance(outcome, Rejected):
            self.journal.append(
                {
                    "type": "rejected",
                    "chunk": chunk.id,
                    "reason": outcome.reason,
                    "reply": outcome.reply[:400],
                }
            )
            self.rejected.add(chunk.id)
            return None
        record = {
            "type": "question",
            "chunk": chunk.id,
            "source": chunk.source,
            "doc_id": chunk.doc_id,
            "question": outcome.question,
            "answer": outcome.answer,
            "attempts": attempts,
        }
        self.journal.append(record)
        self.asked[chunk.id] = record
        return record

    def _score(self, chunk: Chunk, record: dict[str, Any]) -> None:
        """Scores (and outcomes) of the question in each condition the journal lacks."""
        extra = self._unit_size(chunk) + self.components.retrieve_k
        question, answer = record["question"], record["answer"]
        for condition in CONDITIONS:
            key = (chunk.id, condition)
            if key not in self.scores:
                scored = score_question(self.components, question, chunk, answer, condition, extra)
                self._journal("scores", key, self.scores, hits=scored.to_json())
            if self.answers and key not in self.outcomes:
                result = answer_outcome(self.components, question, chunk, answer, condition, extra)
                self._journal("answer", key, self.outcomes, generator=self.generator, **result)

    def _journal(
        self,
        kind: str,
        key: tuple[str, str],
        into: dict[tuple[str, str], dict[str, Any]],
        **fields: Any,
    ) -> None:
        """Append a (chunk, condition) record of this evaluator to the journal and `into`."""
        chunk, condition = key
        row = {"type": kind, "chunk": chunk, "condition": condition, "evaluator": self.evaluator}
        row.update(fields)
        self.journal.append(row)
        into[key] = row

    def _unit_size(self, chunk: Chunk) -> int:
        chunks = self.index.catalog.chunks_of(chunk.source)
        return sum(1 for c in chunks if c.doc_id == chunk.doc_id)

    def observations(self, done: list[tuple[Chunk, dict[str, Any]]]) -> list[Observation]:
        """One observation per question and condition, for the threshold search."""
        out = []
        for chunk, _ in done:
            for condition in CONDITIONS:
                hits = Scored.from_json(self.scores[(chunk.id, condition)]["hits"])
                row = self.outcomes.get((chunk.id, condition)) if self.answers else None
                out.append(
                    Observation(
                        answerable=condition == ANSWERABLE,
                        scores=hits.scores,
                        gold=hits.gold,
                        generated=None if row is None else not row["refused"],
                        generated_right=None if row is None else bool(row["right"]),
                        verified=None if row is None else _probability(row["verified"]),
                    )
                )
        return out
