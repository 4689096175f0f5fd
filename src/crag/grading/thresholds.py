"""Which thresholds the action trigger uses for a collection, and where they come from.

Thresholds belong to a scorer: an LLM judge's probabilities and a cross-encoder's sigmoid are
not on one scale, so a default is only meaningful for the scorer it was measured on. This
module holds those measurements and the order in which settings override them; it lives with
the grading code (not in `crag.config`) so that settings stay a leaf that imports no model code.
"""

from __future__ import annotations

from pathlib import Path

from crag.config import EvaluateSettings, Settings, Thresholds
from crag.grading.stored import stored_thresholds

__all__ = ["JUDGE_THRESHOLDS", "UNMEASURED_THRESHOLDS", "settings_thresholds", "thresholds_for"]

# (upper, lower) of the LLM judge per grader model, from `python -m bench.evaluator`: upper is
# the lowest score at which >= 80% of judged pairs are positives, lower the score 90% of
# positives reach (0.5B: 302 pairs, 1.5B: 201 pairs of SQuAD + NQ with hard negatives).
JUDGE_THRESHOLDS: dict[str, tuple[float, float]] = {
    "qwen2.5-coder-0.5b": (0.54, 0.23),
    "qwen2.5-coder-1.5b": (0.88, 0.62),
}
UNMEASURED_THRESHOLDS = (0.5, 0.25)  # any other judge: run bench/evaluator.py and set them


def thresholds_for(
    evaluate: EvaluateSettings,
    collection: str,
    grader_model: str,
    data_dir: Path | None = None,
    embedding: str | None = None,
) -> Thresholds:
    """Per-collection thresholds, else the configured ones, else the measured ones: those
    `crag calibrate` stored for this collection and evaluator (under `data_dir`), else those
    `crag evaluator calibrate` stored with the cross-encoder, or those bench/evaluator.py
    measured for the grader model (JUDGE_THRESHOLDS). The `evidence` evaluator's thresholds
    were chosen with its weights, per embedding model (`embedding`, the collection's)."""
    if collection in evaluate.per_collection:
        return evaluate.per_collection[collection]
    measured = None
    if evaluate.method == "evidence":
        from crag.grading.evidence import evidence_thresholds

        measured = evidence_thresholds(embedding or "all-MiniLM-L6-v2")
    elif evaluate.method == "cross-encoder":
        from crag.models.cross_encoder import calibrated_thresholds

        measured = calibrated_thresholds(evaluate.model)
    else:
        measured = JUDGE_THRESHOLDS.get(grader_model.lower())
    stored = stored_thresholds(data_dir, collection, evaluate, grader_model)
    upper, lower = stored or measured or UNMEASURED_THRESHOLDS
    return Thresholds(
        upper=evaluate.upper if evaluate.upper is not None else upper,
        lower=evaluate.lower if evaluate.lower is not None else lower,
    )


def settings_thresholds(
    settings: Settings, collection: str | None = None, embedding: str | None = None
) -> Thresholds:
    """`thresholds_for` with everything it needs taken from `settings`, so that the pipeline,
    `crag eval` and `crag calibrate` cannot disagree on a collection's thresholds by passing
    different arguments. `collection` defaults to the configured one; `embedding` to the
    configured model (pass the open index's `embedder.name` where an index is at hand: the
    collection's own embedder is the one the evidence thresholds were chosen for)."""
    return thresholds_for(
        settings.evaluate,
        collection or settings.collection,
        settings.llm.grader.model,
        settings.data_dir,
        embedding=embedding or settings.embedding.model,
    )
