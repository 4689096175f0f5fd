"""What an eval run's figures depend on besides its questions, in two uses.

`setup` is the part a reader of the report needs (models, evaluator, thresholds, web) and goes
into the summary; `fingerprint` adds every setting that changes an answer and is stored with
the results, so a run resumed under other settings is refused (crag.eval.results) instead of
mixing two setups in one table. A key appears only when its setting is away from the default,
so runs made before the key existed stay resumable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crag.config import Settings
from crag.grading.thresholds import settings_thresholds
from crag.modes import Mode

if TYPE_CHECKING:
    from crag.eval.run import EvalPlan

__all__ = ["fingerprint", "setup"]


def setup(s: Settings) -> dict[str, Any]:
    """What the figures depend on besides the questions: models, evaluator, thresholds."""
    t = settings_thresholds(s)
    grader = f"{s.llm.grader.provider}:{s.llm.grader.model}"
    evaluator = {
        "evidence": f"evidence ({s.evaluate.model} + cosine + term overlap)",
        "cross-encoder": f"cross-encoder {s.evaluate.model}",
    }.get(s.evaluate.method, f"LLM judge ({grader})")
    return {
        "collection": s.collection,
        "embedding": s.embedding.model,
        "keyword_language": s.keyword.language,
        "grader": grader,
        "generator": f"{s.llm.generator.provider}:{s.llm.generator.model}",
        "evaluator": evaluator,
        "thresholds": {"upper": t.upper, "lower": t.lower},
        "web": s.web.provider,
    }


def fingerprint(plan: EvalPlan) -> dict[str, Any]:
    from crag.generate.answer_check import VERIFY_CUT
    from crag.pipeline.build import verify_cut

    s = plan.settings
    found = {
        "dataset": str(plan.data.path.resolve()),
        "split": plan.config.split,
        **setup(s),
        "retrieval": [s.retrieval.mode, s.retrieval.fusion, s.retrieval.top_k]
        + (["titles"] if s.retrieval.titles else []),
        "rerank": [s.rerank.model, s.rerank.top_k, *([s.rerank.weight] if s.rerank.model else [])],
        "refine": s.refine.mode,
    }
    cut = verify_cut(s)
    if cut != VERIFY_CUT:  # only then: runs at the default cut stay resumable as they were
        found["verify_cut"] = cut
    from crag.grading.escalation import configured_cuts

    # only when on: runs without it stay resumable as they were
    cuts = configured_cuts(
        s.evaluate, s.llm.generator.model, s.keyword.language, web=s.web.provider != "none"
    )
    if cuts is not None:
        found["escalation"] = list(cuts)
    if plan.near_miss:  # only then: runs without it stay resumable as they were
        nm = plan.near_miss
        found["near_miss"] = {"share": nm.share, "withheld": nm.digest, "units": len(nm.withheld)}
    if Mode.SELF_CRAG in plan.modes:  # only then: runs without it stay resumable as they were
        r = s.llm.role("reflector")
        found["reflection"] = {
            "reflector": f"{r.provider}:{r.model}",
            **s.pipeline.model_dump(exclude={"mode"}),
        }
    return found
