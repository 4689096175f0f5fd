"""The judges `bench.evaluator` compares, made from `--judges` / `--llm-spec`, and how each is run
over the held-out pairs (one call per question, timed). Apart from the pairs and the figures in
bench/evaluator.py: a new judge is made and run here, the measurement stays as it is."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

__all__ = [
    "BiEncoderJudge",
    "judge_names",
    "judge_pairs",
    "make_judge",
    "parsed_spec",
    "spec_llm",
]


def parsed_spec(args: argparse.Namespace) -> tuple[str, str]:
    """(provider, model) of `--llm-spec`; a bad spec or a stray `--base-url` exits here."""
    from crag.errors import ConfigError
    from crag.models.llm.registry import parse_spec

    try:
        provider, model = parse_spec(args.llm_spec)
    except ConfigError as exc:
        raise SystemExit(f"--llm-spec: {exc}") from exc
    if args.base_url and provider == "local":
        raise SystemExit("--base-url is for a served model; local: runs in-process")
    return provider, model


def spec_llm(args: argparse.Namespace) -> Any:
    """The LLM of `--llm-spec` (and `--base-url`), made by the provider registry."""
    from crag.config import LLMRoleSettings
    from crag.models.llm.registry import create

    provider, model = parsed_spec(args)
    role = LLMRoleSettings(provider=provider, model=model, base_url=args.base_url, parallel=1)
    return create(role, Path(args.models_dir))


def judge_names(args: argparse.Namespace) -> list[str]:
    """`--judges`, plus the `--llm-spec` judge ("spec") when a spec is given; a bad spec fails
    here, before minutes of indexing."""
    names = [n for n in args.judges.split(",") if n]
    if args.llm_spec and "spec" not in names:
        names.append("spec")
    if "spec" in names and not args.llm_spec:
        raise SystemExit("judge 'spec' needs --llm-spec PROVIDER:MODEL")
    if args.llm_spec:
        parsed_spec(args)
    return names


def make_judge(name: str, args: argparse.Namespace) -> Any:
    if name == "spec":
        from crag.grading import LLMJudge

        return LLMJudge(spec_llm(args), logprobs=args.llm_format != "structured")
    if name == "ce":
        from crag.models.cross_encoder import CrossEncoderEvaluator

        judge = CrossEncoderEvaluator(args.model, precision=args.precision)
        judge.load()
        return judge
    if name == "bi":
        return BiEncoderJudge()
    if name.startswith("llm-"):
        from crag.grading import LLMJudge
        from crag.models.llm import LlamaCppLLM

        llm = LlamaCppLLM(f"qwen2.5-coder-{name[4:]}", models_dir=Path(args.models_dir))
        llm.load()
        return LLMJudge(llm)
    raise SystemExit(f"unknown judge {name!r}: ce, bi, llm-0.5b, llm-1.5b, spec")


class BiEncoderJudge:
    """Cosine of the packaged bi-encoders (MiniLM for English, USE-multilingual for Turkish),
    mapped to [0, 1]: what crag's dense retrieval already knows, as a baseline."""

    name = "bi-encoder cosine"

    def __init__(self) -> None:
        from crag.models.embedder import make_embedder

        self.models = {"en": make_embedder("all-MiniLM-L6-v2"), "tr": None}
        self._make = make_embedder

    def score(self, question: str, passages: list[str], lang: str = "en") -> list[float]:
        if self.models.get(lang) is None:
            self.models[lang] = self._make("use-multilingual")
        m = self.models[lang]
        q = m.embed([question], kind="query")[0]
        return [float((1 + v @ q) / 2) for v in m.embed(passages)]


def judge_pairs(judge: Any, pairs: list[Any], lang: str) -> tuple[list[float], float]:
    by_q: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_q.setdefault(p.question, []).append(i)
    scores = [0.0] * len(pairs)
    started = time.perf_counter()
    for question, idx in by_q.items():
        texts = [pairs[i].passage for i in idx]
        got = (
            judge.score(question, texts, lang)
            if isinstance(judge, BiEncoderJudge)
            else judge.score(question, texts)
        )
        for i, s in zip(idx, got, strict=True):
            scores[i] = s
    return scores, time.perf_counter() - started
