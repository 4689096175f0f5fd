"""Settings of the CRAG stages after retrieval: evaluate, refine, the pipeline's mode and
bounds, and web search (generate's own settings: `_generate`)."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from crag.modes import Mode, describe_modes


class Thresholds(BaseModel):
    upper: float = Field(ge=0, le=1)
    lower: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.lower > self.upper:
            raise ValueError("lower must not exceed upper")
        return self


class EvaluateSettings(BaseModel):
    method: Literal["evidence", "cross-encoder", "llm"] = Field(
        "evidence",
        description=(
            "'evidence' (default): the trained cross-encoder (evaluate.model) combined with the "
            "embedding cosine and the question's term overlap, calibrated on held-apart "
            "questions; 'cross-encoder': the trained evaluator alone; 'llm': the grader model's "
            "Yes/No log-probability judge (slow on a laptop CPU)."
        ),
    )
    model: str = Field(
        "crag-evaluator",
        description="Cross-encoder: packaged 'crag-evaluator', a trained model folder, a name.",
    )
    upper: float | None = Field(
        None,
        ge=0,
        le=1,
        description="CORRECT if any chunk scores >= upper; default: measured for the grader.",
    )
    lower: float | None = Field(
        None,
        ge=0,
        le=1,
        description="INCORRECT if every chunk scores < lower; default: measured for the grader.",
    )
    per_collection: dict[str, Thresholds] = Field(
        default_factory=dict, description="Thresholds for a named collection, overriding the above."
    )
    concurrency: int = Field(2, ge=1, description="Judge calls in flight per question.")
    # "web" by default: without web search an INCORRECT is a refusal, and on held-out SQuAD-en
    # the escalation lost 3 right answers of 200 (the rule fixed before measuring, right - wrong
    # - answered-where-absent must not fall by more than 1, came out at -2); with web search an
    # INCORRECT reads the web, and on NQ (search double) right - wrong - held-out answered rose
    # by 3 of 150 tuning questions and by 6 of the 200 held-out ones (docs/benchmarks.md
    # "Escalation with web search").
    escalate: bool | Literal["web"] = Field(
        "web",
        description=(
            "AMBIGUOUS with the evidence evaluator: ask the generator's model whether the best "
            "passage answers the question (one call) and turn the verdict CORRECT or INCORRECT "
            'by its cuts (crag.grading.escalation). true: always; "web": only when web '
            "search is configured (an INCORRECT then reads the web instead of same-topic local "
            "passages); false: never. Only where the cuts were measured: an English collection "
            "and a judge model listed in ESCALATION_CUTS, unless both cuts are set."
        ),
    )
    escalate_upper: float | None = Field(
        None, ge=0, le=1, description="Escalation: CORRECT from this P(yes); default: measured."
    )
    escalate_lower: float | None = Field(
        None, ge=0, le=1, description="Escalation: INCORRECT below this P(yes); default: measured."
    )

    @model_validator(mode="after")
    def _ordered(self) -> EvaluateSettings:
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise ValueError("evaluate.lower must not exceed evaluate.upper")
        low, up = self.escalate_lower, self.escalate_upper
        if low is not None and up is not None and low > up:
            raise ValueError("evaluate.escalate_lower must not exceed evaluate.escalate_upper")
        return self


class RefineSettings(BaseModel):
    mode: Literal["selection", "excerption", "fixed_num"] = Field(
        "excerption", description="Strips: whole chunks, ~3-sentence excerpts, 50-word windows."
    )
    # 3, not 5: on 100 tuning questions (SQuAD-en, the evaluator's "calibrate" part) three
    # kept excerpts gave 53 right / 14 wrong against five's 47 / 16 (four: 49 / 18), and on
    # its near-miss mix 2 of 30 near misses answered against 4; the generator reads about 170
    # fewer prompt tokens (~2.9 s on 2 cores). Fewer kept strips distract the small reader
    # less. The cost: an answer string in the top 5 reaches the generator less often (tuning:
    # 82 of 95 against 88). Held out, the gain did not show (docs/benchmarks.md "What the
    # reader reads"); bench/strip_budget.py measures other settings without a model call.
    top_k: int = Field(3, ge=1, description="Strips kept.")
    floor: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Minimum strip score kept; default: none for local strips (rank and score "
        "decide), evaluate.lower for web strips.",
    )
    keep_best_of: int = Field(
        2,
        ge=0,
        description="The best strip of this many leading local chunks is kept whatever its "
        "score (web pages keep their floor).",
    )
    merged_top_k: int = Field(
        0,
        ge=0,
        description="AMBIGUOUS with web search: strips read at most, local and web together, "
        "the best-scored (0: every kept local and web strip).",
    )
    excerpt_sentences: int = Field(3, ge=1, description="Sentences per excerption strip.")
    excerpt_chars: int = Field(600, ge=80, description="Longest excerption strip.")
    window_words: int = Field(50, ge=5)


class PipelineSettings(BaseModel):
    """Which graph answers by default, and Self-RAG's reflection bounds (`crag.reflect`)."""

    mode: Mode = Field(Mode.CRAG, description=describe_modes() + ".")
    reflect: Literal["auto", "always"] = Field(
        "auto",
        description=(
            "self-crag: 'auto' reflects only when the verdict was AMBIGUOUS, the generator "
            "refused despite trusted sources, or its confidence is low; 'always' on every answer."
        ),
    )
    max_regenerations: int = Field(
        2, ge=0, le=10, description="Regenerations of an answer found ungrounded."
    )
    max_steps: int = Field(
        6,
        ge=1,
        le=20,
        description="Hard bound on reflection rounds; reaching it returns the best answer so far, "
        "flagged 'step_limit'.",
    )
    min_confidence: float = Field(
        0.8, ge=0, le=1, description="reflect=auto: reflect when the generator's support is below."
    )
    grounded_threshold: float = Field(
        0.5, ge=0, le=1, description="A claim is supported when the reflector's P(yes) reaches it."
    )
    useful_threshold: float = Field(
        0.5, ge=0, le=1, description="An answer is useful when the reflector's P(yes) reaches it."
    )


class WebSettings(BaseModel):
    """Web search correction for the INCORRECT and AMBIGUOUS verdicts. Off by default (offline).

    API keys are never read from here: Tavily's comes from `TAVILY_API_KEY` in the environment.
    """

    provider: Literal["none", "tavily", "searxng", "duckduckgo"] = Field(
        "none", description="'none' (offline default), 'tavily', 'searxng' or 'duckduckgo'."
    )
    tavily_url: str = Field("https://api.tavily.com", description="Tavily API base URL.")
    searxng_url: str | None = Field(
        None, description="SearXNG instance base URL (CRAG_SEARXNG_URL works too)."
    )
    max_results: int = Field(5, ge=1, le=20, description="Search results asked for.")
    fetch_pages: int = Field(3, ge=0, le=10, description="Top result pages fetched and read.")
    prefer_wikipedia: bool = Field(
        False, description="Bias the query towards Wikipedia and read wikipedia.org pages first."
    )
    search_timeout: float = Field(10.0, gt=0, description="Seconds for one search request.")
    fetch_timeout: float = Field(8.0, gt=0, description="Seconds for one page, all hops included.")
    max_page_bytes: int = Field(1_000_000, ge=1024, description="Page bytes read at most.")
    max_redirects: int = Field(5, ge=0, le=20)
    max_strips: int = Field(
        24, ge=1, description="Web strips judged at most (a cheap word-overlap pre-filter first)."
    )
    top_k: int = Field(3, ge=1, description="Web strips kept for generation.")
    cache_ttl: float = Field(
        86400.0, ge=0, description="Seconds a (provider, query) result is reused; 0 = no cache."
    )
    rewrite: bool = Field(True, description="Let the grader turn the question into keywords.")
    allow_private_addresses: bool = Field(
        False,
        description=(
            "Fetch pages on private, loopback and link-local addresses (SSRF protection off). "
            "Only for local test servers."
        ),
    )
    user_agent: str = Field("crag/0.1 (+corrective RAG; page reader)")

    @model_validator(mode="after")
    def _searxng_from_env(self) -> WebSettings:
        if self.searxng_url is None and os.environ.get("CRAG_SEARXNG_URL"):
            self.searxng_url = os.environ["CRAG_SEARXNG_URL"]
        return self
