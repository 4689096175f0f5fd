"""The steps behind `crag evaluator train / calibrate`, callable from Python as well.

`Sources` names the labelled data (SQuAD files, the NQ pair) and, for distillation, a user's
collection with a file of questions. Each step writes into one run folder, so a killed run
resumes: mined pairs are kept in `pairs.jsonl`, training checkpoints in `checkpoint/`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from crag.grading.base import RetrievalEvaluator
from crag.grading.training.data import LabelledQuestion, Split, load_nq, load_squad, sample
from crag.grading.training.pairs import Pair, distill_pairs, mine_pairs, read_pairs, write_pairs

__all__ = ["Sources", "build_pairs", "labelled_questions"]

T = TypeVar("T")


@dataclass(slots=True)
class Sources:
    squad: list[Path] = field(default_factory=list)
    nq_questions: Path | None = None
    nq_passages: Path | None = None
    nq_limit: int | None = None
    squad_limit: int | None = None
    distill_questions: Path | None = None
    distill_collection: str | None = None
    seed: int = 0


def labelled_questions(
    sources: Sources, split: Split, work: Path
) -> list[tuple[LabelledQuestion, Any]]:
    """(question, its dataset index) for every labelled source, indexes built in `work`."""
    from crag.grading.training.corpus import DatasetIndex

    out: list[tuple[LabelledQuestion, Any]] = []
    for i, path in enumerate(sources.squad):
        index = DatasetIndex(path, work, f"squad{i}")
        qs = sample(load_squad(path, split), sources.squad_limit, sources.seed)
        out += [(q, index) for q in qs]
    if sources.nq_questions and sources.nq_passages:
        index = DatasetIndex(sources.nq_passages, work, "nq")
        qs = load_nq(sources.nq_questions, sources.nq_passages, split)
        out += [(q, index) for q in sample(qs, sources.nq_limit, sources.seed)]
    return out


@contextmanager
def one_thread() -> Iterator[None]:
    """Mining embeds one short query at a time: one torch thread is as fast, and on a busy
    machine far faster (no OpenMP barrier waiting for a descheduled sibling thread)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _distill_questions(sources: Sources) -> list[str]:
    """The distillation questions, one a line (blank lines skipped); none without a file."""
    if sources.distill_questions is None:
        return []
    text = sources.distill_questions.read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _counted(items: Iterable[T], tick: Callable[[], None] | None) -> Iterator[T]:
    """`items`, calling `tick` after each: progress without changing what is mined (the
    miners' seeded sampling sees the same sequence)."""
    for item in items:
        yield item
        if tick is not None:
            tick()


def build_pairs(
    sources: Sources,
    run: Path,
    *,
    judge: Callable[[], RetrievalEvaluator] | None = None,
    settings: Any = None,
    fresh: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_question: Callable[[], None] | None = None,
) -> list[Pair]:
    """Mine (or reuse) the run's training pairs: labelled data, then distillation.

    `on_start(n)` is told how many questions will be mined, `on_question()` is called after
    each (mining thousands of questions takes minutes: the CLI shows a progress bar).
    """
    path = run / "pairs.jsonl"
    if path.exists() and not fresh:
        return read_pairs(path)
    run.mkdir(parents=True, exist_ok=True)
    pairs: list[Pair] = []
    by_index: dict[int, tuple[Any, list[LabelledQuestion]]] = {}
    for q, index in labelled_questions(sources, "train", run / "index"):
        by_index.setdefault(id(index), (index, []))[1].append(q)
    questions = _distill_questions(sources)
    if on_start is not None:
        on_start(sum(len(qs) for _, qs in by_index.values()) + len(questions))
    with one_thread():
        for n, (index, qs) in enumerate(by_index.values()):
            pairs += mine_pairs(
                _counted(qs, on_question), index.search, index.gold_chunks, seed=sources.seed + n
            )
    if sources.distill_questions:
        if judge is None or settings is None:
            raise ValueError("distillation needs a judge and the settings of the collection")
        from crag.index.retriever import HybridRetriever
        from crag.index.store import Index

        index = Index.open(settings)
        try:
            retriever = HybridRetriever(index, settings.retrieval)
            pairs += distill_pairs(
                _counted(questions, on_question),
                lambda q, k: [h.chunk for h in retriever.search(q, k=k)],
                judge(),
            )
        finally:
            index.close()
    if not pairs:
        raise ValueError("no training pairs: give --squad, --nq-* or --distill-questions")
    write_pairs(pairs, path)
    return pairs
