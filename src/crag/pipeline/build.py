"""Build a `Pipeline` from settings: the one place where components are constructed.

Everything else receives its parts; this factory is what `crag ask`, the server and the
benchmarks call. LLMs come from the provider registry (`crag.models.llm.registry`); roles that
name the same provider, model and server share one client (and one loaded llama.cpp model).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crag.config import ROLES, LLMRoleSettings, Settings
from crag.models.llm import LLM, RoleLLM
from crag.models.llm.registry import create
from crag.pipeline.runner import Pipeline
from crag.pipeline.state import Components

__all__ = ["build_pipeline", "make_llm", "make_roles"]


def make_llm(role: LLMRoleSettings, models_dir: Path) -> LLM:
    """An LLM for one role's settings, built by the provider it names."""
    return create(role, models_dir)


def make_roles(settings: Settings, names: tuple[str, ...] = ROLES) -> dict[str, RoleLLM]:
    """`RoleLLM`s for the named roles; roles on the same provider/model/server share one LLM."""
    models_dir = settings.llm.models_dir or settings.data_dir / "models"
    llms: dict[tuple[str, str, str | None, str | None], LLM] = {}
    roles: dict[str, RoleLLM] = {}
    for name in names:
        role = settings.llm.role(name)
        key = (role.provider, role.model, role.base_url, role.api_key_env)
        if key not in llms:
            llms[key] = make_llm(role, models_dir)
        roles[name] = RoleLLM(name, llms[key])
    return roles


def build_pipeline(settings: Settings, index: Any, **overrides: Any) -> Pipeline:
    """A pipeline over an open `Index`; keyword `overrides` replace built components."""
    from crag.evaluate import ActionTrigger, LLMJudge
    from crag.generate import Generator
    from crag.index.retriever import HybridRetriever
    from crag.models.reranker import make_reranker
    from crag.refine import Refiner

    roles = make_roles(settings, ("grader", "generator"))
    grader, generator = roles["grader"], roles["generator"]
    thresholds = settings.evaluate.thresholds(settings.collection, settings.llm.grader.model)
    evaluator = overrides.pop("evaluator", None) or LLMJudge(
        grader,
        concurrency=settings.evaluate.concurrency,
        logprobs=settings.llm.grader.logprobs is not False,
    )
    floor = settings.refine.floor if settings.refine.floor is not None else thresholds.lower
    parts: dict[str, Any] = {
        "retriever": HybridRetriever(index, settings.retrieval),
        "reranker": make_reranker(settings.rerank.model) if settings.rerank.model else None,
        "evaluator": evaluator,
        "trigger": ActionTrigger(upper=thresholds.upper, lower=thresholds.lower),
        "refiner": Refiner(
            evaluator,
            mode=settings.refine.mode,
            top_k=settings.refine.top_k,
            floor=floor,
            excerpt_sentences=settings.refine.excerpt_sentences,
            excerpt_chars=settings.refine.excerpt_chars,
            window_words=settings.refine.window_words,
        ),
        "generator": Generator(
            generator,
            max_tokens=settings.generate.max_tokens,
            temperature=settings.generate.temperature,
            min_support=settings.generate.min_support,
        ),
        "retrieve_k": settings.retrieval.top_k,
        "rerank_k": settings.rerank.top_k,
    }
    parts.update(overrides)
    return Pipeline(Components(**parts))
