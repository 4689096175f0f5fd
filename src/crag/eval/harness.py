"""Run every question through every mode, one line of results per pair.

The harness receives what it needs — a pipeline (anything with `ask(question, mode)`: one
`Pipeline`, or `crag.eval.processes.ModeProcesses`, a process per mode), a way to look chunks
up by id (the index catalog), the questions, the modes and the results file — and builds none
of it: `crag eval` (crag.eval.run) does that at the edge.

Questions are asked mode after mode for the same question (rag, crag, rag, crag, ...) so that
background load on a shared machine hits every mode alike. Pairs already in `results.jsonl`
are skipped; a pair that failed with an error is retried by the next run. Five failures in a
row stop the run: the cause is then the setup, not the question.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, Protocol

from crag.datasets import EvalItem
from crag.errors import CragError
from crag.eval.metrics import contains_answer
from crag.eval.results import ResultsFile
from crag.modes import SELF_RAG, Mode, normalise_mode
from crag.trace import Trace
from crag.types import Answer, Chunk

__all__ = [
    "KNOWN_MODES",
    "ChunkLookup",
    "EvalProgress",
    "Harness",
    "check_modes",
    "check_order",
    "normalise_mode",
]

KNOWN_MODES = (Mode.RAG.value, Mode.CRAG.value, Mode.SELF_CRAG.value, SELF_RAG)
MAX_ERRORS_IN_A_ROW = 5
ORDERS = ("question", "mode")
# not a dataset question: llama.cpp's prompt cache must not speed up a measured one
WARM_UP = "What is this collection about?"
TOP_READ = 5  # the reranked chunks the answer-kept rate starts from


class Asker(Protocol):
    def ask(self, question: str, mode: Any = Mode.CRAG) -> Answer: ...


class ChunkLookup(Protocol):
    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]: ...


class EvalProgress(Protocol):
    def start(self, total: int, skipped: int) -> None: ...
    def advance(self, record: dict[str, Any]) -> None: ...


class _NoProgress:
    def start(self, total: int, skipped: int) -> None: ...
    def advance(self, record: dict[str, Any]) -> None: ...


def check_order(order: str) -> None:
    """Refuse an unknown `--order` (checked before any model loads, and by `pending`)."""
    if order not in ORDERS:
        raise CragError(f"--order {order!r}: use {' or '.join(ORDERS)}")


def check_modes(modes: Sequence[str], graph_for: Callable[[str], object]) -> list[str]:
    """The requested modes, normalised; a clear error when the pipeline lacks one.

    `graph_for(mode)` builds the mode's graph (Pipeline.graph) and raises ValueError for a mode
    it does not know; no model is loaded to find out.
    """
    wanted = list(dict.fromkeys(normalise_mode(m) for m in modes if m.strip()))
    if not wanted:
        raise CragError(f"--modes is empty; name at least one of {Mode.RAG}, {Mode.CRAG}")

    def builds(mode: str) -> bool:
        try:
            graph_for(mode)
        except ValueError:
            return False
        return True

    missing = [m for m in wanted if not builds(m)]
    if missing:
        supported = [m for m in KNOWN_MODES if builds(m)]
        later = (
            f" ({SELF_RAG} alone is not built: use {Mode.SELF_CRAG})" if SELF_RAG in missing else ""
        )
        raise CragError(
            f"mode {', '.join(missing)} is not supported by this pipeline{later}; "
            f"supported modes: {', '.join(supported)}"
        )
    return wanted


def _rank(units: list[str | None], gold: str | None) -> int | None:
    """1-based rank of the first chunk of the gold unit (chunks from outside the index, such
    as web results, have no unit and never match)."""
    return units.index(gold) + 1 if gold is not None and gold in units else None


class Harness:
    def __init__(
        self,
        pipeline: Asker,
        chunks: ChunkLookup,
        results: ResultsFile,
        *,
        language: str = "en",
        progress: EvalProgress | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.chunks = chunks
        self.results = results
        self.language = language
        self.progress = progress or _NoProgress()

    def pending(
        self, items: Sequence[EvalItem], modes: Sequence[str], order: str = "question"
    ) -> list[tuple[EvalItem, str]]:
        """(question, mode) pairs with no successful result yet, in run order.

        `order="question"` asks each question in every mode before the next question, so load
        from other work hits the modes alike; `"mode"` runs all questions through one mode,
        then the next. (Neither keeps modes asked in one process from finding each other's
        prompts in the model server's cache: crag.eval.processes does.)
        """
        check_order(order)
        pairs = (
            [(item, mode) for item in items for mode in modes]
            if order == "question"
            else [(item, mode) for mode in modes for item in items]
        )
        out = []
        for item, mode in pairs:
            record = self.results.records.get((item.id, mode))
            if record is None or record.get("error"):
                out.append((item, mode))
        return out

    def run(
        self,
        items: Sequence[EvalItem],
        modes: Sequence[str],
        *,
        warm_up: bool = True,
        order: str = "question",
    ) -> int:
        """Ask every pending pair; returns how many were asked.

        With `warm_up`, one throw-away question per mode is asked first, so that loading the
        models (seconds on a CPU) is not counted in the first question's latency.
        """
        todo = self.pending(items, modes, order)
        if warm_up and todo:
            for mode in dict.fromkeys(m for _, m in todo):
                with suppress(CragError):  # the real run records errors
                    self.pipeline.ask(WARM_UP, mode)
        self.progress.start(len(todo), len(items) * len(modes) - len(todo))
        errors_in_a_row = 0
        for item, mode in todo:
            record = self.ask(item, mode)
            self.results.append(record)
            self.progress.advance(record)
            errors_in_a_row = errors_in_a_row + 1 if record["error"] else 0
            if errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
                raise CragError(
                    f"{MAX_ERRORS_IN_A_ROW} questions in a row failed; the last: {record['error']}"
                )
        return len(todo)

    def ask(self, item: EvalItem, mode: str) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": item.id,
            "mode": mode,
            "question": item.question,
            "answers": list(item.answers),
            "gold_unit": item.gold_unit,
            "answerable": item.answerable,
            "part": item.part,
            "language": self.language,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            # 1-minute load average when asked: timings on a shared machine need it
            "load": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
            "error": None,
        }
        try:
            answer = self.pipeline.ask(item.question, mode)
        except CragError as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
            return record
        trace = answer.trace
        retrieved = [h.id for h in trace.retrieved]
        reranked = [h.id for h in trace.reranked]
        found = self.chunks.get_chunks(list(dict.fromkeys(retrieved + reranked)))
        units = [found[i].doc_id if i in found else None for i in retrieved]
        top = [found[i].text for i in reranked[:TOP_READ] if i in found]
        record.update(
            answer=answer.text,
            refused=answer.refused,
            verdict=answer.verdict.value if answer.verdict else None,
            citations=[c.label for c in answer.citations],
            retrieved_units=units,
            gold_rank=_rank(units, item.gold_unit),
            gold_in_context=self._gold_in_context(item, [found[i] for i in reranked if i in found]),
            trace=trace.to_dict(),
        )
        record.update(self._answer_kept(item, mode, top, trace))
        return record

    def _answer_kept(
        self, item: EvalItem, mode: str, top: list[str], trace: Trace
    ) -> dict[str, bool | None]:
        """Was a gold answer string in the reranked top 5, and then in what the generator
        read (the kept strips, local and web; rag reads the top 5 whole)? None when the
        question has no answer to look for."""
        if not item.answerable or not item.answers:
            return {"answer_in_top5": None, "answer_kept": None}
        in_top = any(contains_answer(t, item.answers, self.language) for t in top)
        if mode == Mode.RAG:
            read = top
        else:
            web = trace.web.strips if trace.web is not None else []
            read = [s.text for s in trace.strips if s.kept] + [s.text for s in web if s.kept]
        kept = any(contains_answer(t, item.answers, self.language) for t in read)
        return {"answer_in_top5": in_top, "answer_kept": kept if in_top else None}

    def _gold_in_context(self, item: EvalItem, chunks: list[Chunk]) -> bool:
        """Did the evaluator (and rag's generator) see a gold-bearing chunk: one of the gold
        unit (any unit when the dataset names none) whose text holds a gold answer?"""
        if not item.answerable or not item.answers:
            return False
        return any(
            (item.gold_unit is None or c.doc_id == item.gold_unit)
            and contains_answer(c.text, item.answers, self.language)
            for c in chunks
        )
