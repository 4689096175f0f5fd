"""Settings of the generate stage: how crag reads its sources, checks and verifies the answer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class GenerateSettings(BaseModel):
    max_tokens: int = Field(320, ge=16, description="Longest answer, in tokens.")
    explain: Literal["quote", "model"] = Field(
        "quote",
        description=(
            "The sentence after the short answer: `quote`, the cited source's own sentence "
            "that holds the answer (the reading stops after the short answer's citation); "
            "`model`, a sentence the model writes (slower, and checked for support)."
        ),
    )
    verify: bool = Field(
        True,
        description=(
            "When the evaluator is not sure, ask the generator's model whether the passage "
            "holding the answer states it (one short call); off: the passage's score decides."
        ),
    )
    verify_correct: bool = Field(
        False,
        description=(
            "Verify every answer under a CORRECT verdict too (one more short call for those "
            "questions): the evaluator judged the passages, not the span the reader took from "
            "them. Off, an answer under CORRECT is verified only where no passage holds it as "
            "written."
        ),
    )
    verify_cut: float | None = Field(
        None,
        ge=0,
        le=1,
        description=(
            "P(yes) the verification must reach; default: the cut `crag calibrate --answers` "
            "stored for the collection, else 0.75 (chosen on tuning questions). "
            "Lower (0.5: yes more likely than no) answers more, wrong answers too; higher "
            "(0.88) refuses more near misses and more right answers (docs/benchmarks.md)."
        ),
    )
    read_alone: int = Field(
        1,
        ge=0,
        le=5,
        description=(
            "crag modes: also read the best N sources one at a time and answer with the "
            "candidate whose source ties it closest to the question (0: one reading)."
        ),
    )
    align_floor: float = Field(
        0.15,
        ge=0,
        le=1,
        description=(
            "crag modes: the least a reading of one source alone must tie its answer to the "
            "question (share of the question's words near the answer) to be used."
        ),
    )
    prefer_best: float = Field(
        0.05,
        ge=0,
        le=1,
        description=(
            "crag modes: the reading of the best-scored source alone also wins when it ties "
            "its answer within this much of an answer taken from another source."
        ),
    )
    corroborate: bool = Field(
        False,
        description=(
            "crag modes, stricter: unless the evaluator said CORRECT, refuse an answer only the "
            "reading of all sources gave when the best source, read alone, declined. Fewer "
            "wrong answers, fewer right ones (docs/benchmarks.md#corroboration)."
        ),
    )
    code_span: bool = Field(
        False,
        description=(
            "crag modes: when the reading of all sources answers, read them again framed as "
            "code (a Python dictionary of string literals, the reply a JSON value under a "
            "schema) and answer with that reading's span; the prose reading still decides "
            "whether to answer. Off: on 2 cores it doubled crag's median time for 4 fewer "
            "wrong answers in 200 (docs/benchmarks.md#the-reading-framed-as-code)."
        ),
    )
    reading: Literal["prose", "code"] = Field(
        "prose",
        description=(
            "crag modes, English questions: how the sources are read together. `code`: framed "
            "as code (as `code_span` frames them), and the answer is a candidate only where the "
            "model was sure of it: every token of its span at least `code_sure` probable. More "
            "right answers, fewer wrong ones, one near miss more in 100, crag slower than rag "
            "(docs/benchmarks.md#the-coded-readings-own-certainty)."
        ),
    )
    code_sure: float = Field(
        0.3,
        ge=0,
        le=1,
        description=(
            "`reading = code`: the lowest probability a token of the coded reading's answer "
            "may have for the answer to stand; below it the reading counts as a decline."
        ),
    )
    temperature: float = Field(0.0, ge=0, le=2)
    min_support: float = Field(
        0.5,
        ge=0,
        le=1,
        description=(
            "Drop answer sentences whose new content words are not mostly in the sources they "
            "cite (0 disables); an answer with no supported sentence becomes a refusal."
        ),
    )
