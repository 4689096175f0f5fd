"""Self-RAG mode end to end with the real packaged models: the 0.5B grader judges passages,
the 1.5B model writes the answer and, as the reflector, checks it.

Each route is forced the way the pipeline tests force verdicts: by pinning a threshold so the
route must follow from the rule (grounded threshold above 1 → no claim can be supported;
useful threshold above 1 → no answer is useful; 0 → everything passes), with the real model
producing the answers and the scores. The false-premise test pins nothing.
"""

from __future__ import annotations

import pytest
from tests.conftest import ROOT, share_models
from tests.servers.search_double import SearchDouble, load_nq_part

from crag.grading import ActionTrigger
from crag.pipeline import build_pipeline
from crag.types import Verdict

pytestmark = pytest.mark.slow

BEES = "How does a honey bee tell others how far away the flowers are?"
PASSAGES = ROOT / ".." / "shared" / "datasets" / "nq-passages.jsonl"
NEVER = 1.01  # above any probability: nothing passes


def _pipeline(sample_index, llm, generator_llm, tmp_path, *, upper=0.0, lower=0.0, web=None,
              grounded=0.5, useful=0.5, **pipeline):  # fmt: skip
    settings, index = sample_index
    settings = settings.model_copy(deep=True)
    settings.data_dir = tmp_path
    settings.refine.floor = 0.0
    settings.rerank.top_k = 3
    settings.pipeline = settings.pipeline.model_validate({"reflect": "always", **pipeline})
    if web is not None:
        settings.web = settings.web.model_validate(
            {"provider": "searxng", "searxng_url": web.url, "allow_private_addresses": True,
             "max_results": 3, "fetch_pages": 2}
        )  # fmt: skip
    p = build_pipeline(settings, index)
    c = p.components
    c.trigger = ActionTrigger(upper=upper, lower=lower)
    c.reflector.grounded_threshold, c.reflector.useful_threshold = grounded, useful
    # share the session's loaded models
    share_models(p, llm, generator_llm)
    c.reflector.claims.llm.llm = generator_llm  # the reflector role: the generator's model
    return p


def _generations(answer) -> list:
    return [c for c in answer.trace.calls if c.purpose == "generate"]


def test_grounded_and_useful_finishes_after_one_round(sample_index, llm, generator_llm, tmp_path):
    p = _pipeline(sample_index, llm, generator_llm, tmp_path, grounded=0.0, useful=0.0)
    answer = p.ask(BEES, "self-crag")
    r = answer.trace.reflection
    assert r is not None and r.ran and r.why == "reflect=always"
    assert [rd.route for rd in r.rounds] == ["finish"] and r.final == "as generated"
    claims = r.rounds[0].claims
    assert claims and all(0.0 <= c.score <= 1.0 for c in claims if c.score is not None)
    purposes = {(c.role, c.purpose) for c in answer.trace.calls}
    assert {("reflector", "reflect-grounded"), ("reflector", "reflect-useful")} <= purposes
    assert "reflect" in answer.trace.stages_ms and answer.citations and not answer.flags


def test_ungrounded_answers_are_regenerated_within_the_bound_then_refused(
    sample_index, llm, generator_llm, tmp_path
) -> None:
    p = _pipeline(sample_index, llm, generator_llm, tmp_path, grounded=NEVER, max_regenerations=2)
    answer = p.ask(BEES, "self-crag")
    assert answer.trace.reflection is not None
    rounds = answer.trace.reflection.rounds
    assert rounds[0].route == "regenerate" and not rounds[0].grounded
    generations = _generations(answer)
    assert len(generations) == len(rounds) <= 3  # 1 + max_regenerations
    # the retry prompt names the unsupported claims: it is longer than the first prompt
    assert generations[1].prompt_tokens > generations[0].prompt_tokens
    assert rounds[-1].route == "finish"
    assert answer.refused and not answer.citations  # nothing could be grounded
    assert not answer.flags


def test_step_limit_returns_the_best_answer_with_a_flag(sample_index, llm, generator_llm, tmp_path):
    p = _pipeline(sample_index, llm, generator_llm, tmp_path, grounded=NEVER, max_steps=1)
    answer = p.ask(BEES, "self-crag")
    r = answer.trace.reflection
    assert r is not None and answer.flags == ["step_limit"] and r.step_limit
    assert len(r.rounds) == 1 and r.rounds[0].why.startswith("step limit 1 reached")
    assert len(_generations(answer)) == 1
    assert answer.text  # an answer (here an honest refusal), not an exception


@pytest.fixture(scope="module")
def double():
    if not PASSAGES.exists():
        pytest.skip(f"{PASSAGES} is missing")
    with SearchDouble(load_nq_part("web", PASSAGES)) as server:
        yield server


def test_not_useful_searches_the_web_once(sample_index, llm, generator_llm, double, tmp_path):
    p = _pipeline(sample_index, llm, generator_llm, tmp_path, web=double, useful=NEVER)
    answer = p.ask("who played worf on star trek the next generation?", "self-crag")
    r = answer.trace.reflection
    assert r is not None and answer.trace.web is not None
    routes = [rd.route for rd in r.rounds]
    assert routes[0] == "web_search" and routes.count("web_search") == 1, routes
    assert "web_search" in answer.trace.stages_ms and answer.trace.web.results
    assert r.web and routes[-1] == "finish"
    if not answer.refused:  # a grounded answer never found useful: said so, not passed off
        assert answer.text.startswith("The sources do not answer this question as asked")


def test_auto_skips_confident_answers_and_reflects_on_ambiguous(
    sample_index, llm, generator_llm, tmp_path
) -> None:
    sure = _pipeline(sample_index, llm, generator_llm, tmp_path, reflect="auto", min_confidence=0)
    answer = sure.ask(BEES, "self-crag")
    r = answer.trace.reflection
    assert answer.verdict is Verdict.CORRECT
    assert r is not None and not r.ran and r.why.startswith("verdict correct"), r
    assert "reflect" not in answer.trace.stages_ms
    doubt = _pipeline(sample_index, llm, generator_llm, tmp_path, upper=1.0, reflect="auto")
    answer = doubt.ask(BEES, "self-crag")
    assert answer.verdict is Verdict.AMBIGUOUS
    r = answer.trace.reflection
    assert r is not None and r.ran and r.why == "the verdict was AMBIGUOUS" and r.rounds


def test_a_false_premise_is_not_answered_with_an_invention(
    sample_index, llm, generator_llm, tmp_path
) -> None:
    settings, index = sample_index
    p = build_pipeline(settings.model_copy(deep=True), index)
    share_models(p, llm, generator_llm)
    p.components.reflector.claims.llm.llm = generator_llm
    answer = p.ask("Why do honey bees dance to warn their nest mates about bears?", "self-crag")
    text = answer.text
    assert answer.refused or text.startswith("The sources do not"), text
    assert "bear" not in text.lower() or "do not" in text.lower(), text
