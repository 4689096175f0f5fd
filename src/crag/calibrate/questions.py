"""Questions from the collection's own chunks: a seeded sample, asked of the configured LLM.

For each sampled chunk the LLM (the generator role) writes one factoid question the chunk
answers and the short answer, as JSON. What it writes is checked before it is used, because a
small model's output is often unusable: the reply must be JSON with both fields; the answer must
occur in the chunk (as whole normalised words, the rule `crag eval` matches answers by) and be
short; the question must read as a question on its own (no "the passage", "this text", no
"we", "this code" or "the example" of the page it came from) and must not contain its answer.
A rejected reply is asked again with a fresh seed and some temperature, a bounded number of
times; a chunk that never gets a usable question is recorded as rejected and the sample moves
on.

The sample goes round the sources (seeded order of sources, seeded order of chunks within each
one), so a folder of many files is covered evenly rather than by its longest file.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from crag.datasets.answers import contains_answer, tokens
from crag.models.llm.base import LLM, ChatRequest
from crag.models.llm.structured import extract_json, strip_reasoning
from crag.types import Chunk

__all__ = [
    "QUESTION_SCHEMA",
    "GeneratedQuestion",
    "Rejected",
    "ask_for_question",
    "parse_question",
    "sample_chunks",
]

SYSTEM = "You write quiz questions about a passage. Reply with JSON only."
USER = (
    "Passage:\n{passage}\n\n"
    "Write one factoid question that this passage answers, and its short answer copied word "
    "for word from the passage (a name, number, date or phrase of at most {max_words} words). "
    "The question must make sense on its own, without the passage: name its subject, do not "
    'say "the passage" or "the text", and do not put the answer in the question.\n'
    'Reply as JSON: {{"question": "...", "answer": "..."}}'
)
QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
    "required": ["question", "answer"],
    "additionalProperties": False,
}
MAX_ANSWER_WORDS = 6
MIN_CHUNK_WORDS = 20
MAX_PASSAGE_CHARS = 2000
_DEICTIC = re.compile(
    r"\b(passage|paragraph|excerpt|the text|this text|the above|the document|this document|"
    r"the article|this article|the author)\b",
    re.IGNORECASE,
)
# A question that leans on where it was written: the author's "we" ("What do we need to
# await?"), "this"/"these" ("this code"), and the parts of a page ("the example", "the
# following"). Asked without the page it is vague, and a near miss's answer to it is no
# hallucination. Lower-case pronouns only: "US" is a country.
_CONTEXTUAL = re.compile(
    r"\b(?:we|our|us)\b|\b(?:[Tt]his|[Tt]hese|[Tt]he following|[Tt]he example|"
    r"[Tt]he listing|[Tt]he snippet|[Tt]he figure)\b|^We\b"
)
_QUOTES = "\"'`“”‘’«» "


@dataclass(frozen=True, slots=True)
class GeneratedQuestion:
    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str
    reply: str = ""


def parse_question(reply: str, passage: str) -> GeneratedQuestion | Rejected:
    """The question and answer in an LLM's reply, if they pass the checks (module docstring)."""
    data = extract_json(strip_reasoning(reply or ""))
    if not isinstance(data, dict):
        return Rejected("not a JSON object", reply)
    question, answer = data.get("question"), data.get("answer")
    if not isinstance(question, str) or not isinstance(answer, str):
        return Rejected("question or answer missing", reply)
    question = " ".join(question.split())
    answer = " ".join(answer.split()).strip(_QUOTES).rstrip(".,;:!").strip(_QUOTES)
    if not tokens(answer):
        return Rejected("empty answer", reply)
    if len(answer.split()) > MAX_ANSWER_WORDS or len(answer) > 80:
        return Rejected("answer too long", reply)
    words = question.split()
    if not 3 <= len(words) <= 40:
        return Rejected("question too short or too long", reply)
    if not question.endswith("?"):
        if "?" in question:
            return Rejected("more than a question", reply)
        question = question.rstrip(".!:;") + "?"
    if _DEICTIC.search(question):
        return Rejected("question refers to the passage", reply)
    if _CONTEXTUAL.search(question):
        return Rejected("question leans on its page (we, this, the example)", reply)
    if not contains_answer(passage, [answer]):
        return Rejected("answer not in the chunk", reply)
    if contains_answer(question, [answer]):
        return Rejected("question contains the answer", reply)
    return GeneratedQuestion(question, answer)


def ask_for_question(
    llm: LLM, chunk: Chunk, *, attempts: int = 3, seed: int = 0, max_tokens: int = 120
) -> tuple[GeneratedQuestion | Rejected, int]:
    """One validated question for `chunk`, or the last rejection; and the attempts it took."""
    passage = chunk.text[:MAX_PASSAGE_CHARS]
    user = USER.format(passage=passage, max_words=MAX_ANSWER_WORDS)
    outcome: GeneratedQuestion | Rejected = Rejected("not asked")
    for attempt in range(max(1, attempts)):
        request = ChatRequest.of(
            SYSTEM,
            user,
            max_tokens=max_tokens,
            temperature=0.0 if attempt == 0 else 0.7,
            seed=seed + attempt,
            purpose="calibrate",
            json_schema=QUESTION_SCHEMA,
        )
        result = llm.chat(request)
        if result.finish_reason == "length":  # a cut-off answer may still parse: not trusted
            outcome = Rejected("reply cut off", result.text)
            continue
        outcome = parse_question(result.text, passage)
        if isinstance(outcome, GeneratedQuestion):
            return outcome, attempt + 1
    return outcome, max(1, attempts)


def sample_chunks(catalog: Any, seed: int, min_words: int = MIN_CHUNK_WORDS) -> Iterator[Chunk]:
    """Chunks of a `Catalog` in a seeded order that goes round the sources; short ones skipped.

    The order depends only on the seed and what is indexed, so a resumed run walks the same
    chunks in the same order.
    """
    rng = random.Random(seed)
    names = sorted(info.source for info in catalog.sources() if info.state == "done")
    rng.shuffle(names)
    queues: list[list[str]] = []
    for name in names:
        ids = sorted(catalog.chunk_ids(name))
        rng.shuffle(ids)
        queues.append(ids)
    depth = max((len(q) for q in queues), default=0)
    for level in range(depth):
        wanted = [q[level] for q in queues if level < len(q)]
        found = catalog.get_chunks(wanted)
        for cid in wanted:
            chunk = found.get(cid)
            if chunk is not None and len(chunk.text.split()) >= min_words:
                yield chunk
