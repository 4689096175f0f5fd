"""Query rewriting for web search: the question becomes at most three keywords (CRAG §4.5).

A search engine wants keywords, not a conversational question. The grader model is shown two
worked examples and asked for at most three comma-separated keywords; the original question is
kept for scoring strips and for generation. Small models sometimes answer with junk (an
answer instead of keywords, a whole paragraph, an empty line), so the reply is checked: a
keyword must share a word with the question, be short, and three at most are kept. When
nothing usable is left — or the model fails — a deterministic extraction of the question's
content words is used, so a search always has a query.

A reply that parses is then checked as a whole (crag.refine.rewrite_check): it may only use the
question's words (normalised forms allowed) and must keep its key terms. One that adds a word
or drops the subject is rejected, not patched: the deterministic extraction is used and the
Rewrite says why (method "rejected", `reason`), which the trace shows.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from crag.errors import LLMError
from crag.models.llm.base import LLM, ChatRequest, Message
from crag.refine.rewrite_check import STOPWORDS, check_rewrite

__all__ = [
    "STOPWORDS",
    "QueryRewriter",
    "Rewrite",
    "keyword_query",
    "parse_keywords",
    "reply_pieces",
]

log = logging.getLogger(__name__)

SYSTEM = (
    "You turn a question into a web search query: at most three keywords or short phrases, "
    "separated by commas. Reply with the query only."
)
EXAMPLES = (
    Message("user", "Question: In what city was the painter Billy Carlson born?"),
    Message("assistant", "Billy Carlson, painter, city born"),
    Message("user", "Question: when did the golden gate bridge open to traffic"),
    Message("assistant", "Golden Gate Bridge, opened to traffic"),
)
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_PREFIX = re.compile(r"^\s*(?:search\s+)?(?:query|keywords?)\s*[:：-]\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Rewrite:
    query: str
    keywords: tuple[str, ...]
    # "llm" | "rejected" (the reply added or dropped terms: `reason`) | "fallback" (reply
    # unusable or model failed) | "keywords" (no model)
    method: str
    raw: str = ""  # what the model replied, for the trace
    reason: str = ""  # why a model rewrite was rejected


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def keyword_query(question: str, max_keywords: int = 3) -> tuple[str, ...]:
    """Deterministic keywords: runs of content words between function words, longest first
    (at most `max_keywords`, kept in question order)."""
    phrases: list[list[str]] = [[]]
    for word in _WORD.findall(question):
        if word.lower() in STOPWORDS:
            if phrases[-1]:
                phrases.append([])
        else:
            phrases[-1].append(word)
    runs = [" ".join(p) for p in phrases if p]
    if not runs:
        return (" ".join(question.split()),) if question.strip() else ()
    ranked = sorted(range(len(runs)), key=lambda i: (-len(runs[i].split()), i))[:max_keywords]
    return tuple(runs[i] for i in sorted(ranked))


def reply_pieces(reply: str) -> tuple[str, ...]:
    """The comma-separated pieces of a model reply's first line, cleaned; pieces too long to
    be keywords (a sentence, a paragraph) are left out."""
    lines = [ln for ln in reply.strip().splitlines() if ln.strip()]
    if not lines:
        return ()
    line = _PREFIX.sub("", lines[0]).strip().strip("\"'`.").strip()
    out: list[str] = []
    for piece in re.split(r"[,;|]", line):
        piece = " ".join(piece.strip().strip("\"'`*-•").split())
        words = _words(piece)
        if not words or len(words) > 8 or len(piece) > 80:
            continue
        if piece.lower() not in {k.lower() for k in out}:
            out.append(piece)
    return tuple(out)


def parse_keywords(reply: str, question: str, max_keywords: int = 3) -> tuple[str, ...]:
    """Keywords from a model reply that share a word with the question, or ()."""
    asked = set(_words(question))
    pieces = [p for p in reply_pieces(reply) if set(_words(p)) & asked]
    return tuple(pieces[:max_keywords])


class QueryRewriter:
    """Question → keyword query with the grader model; deterministic fallback on junk."""

    def __init__(self, llm: LLM | None, *, max_keywords: int = 3, max_tokens: int = 32) -> None:
        self.llm = llm
        self.max_keywords = max_keywords
        self.max_tokens = max_tokens

    def rewrite(self, question: str) -> Rewrite:
        raw = ""
        if self.llm is not None:
            request = ChatRequest(
                messages=(
                    Message("system", SYSTEM),
                    *EXAMPLES,
                    Message("user", f"Question: {question.strip()}"),
                ),
                max_tokens=self.max_tokens,
                temperature=0.0,
                purpose="rewrite",
            )
            try:
                raw = self.llm.chat(request).text
            except LLMError as exc:
                log.warning("query rewriting failed, using keyword extraction: %s", exc)
                raw = ""
            pieces = reply_pieces(raw)[: self.max_keywords]
            if pieces:
                reason = check_rewrite(pieces, question)
                if not reason:
                    return Rewrite(" ".join(pieces), pieces, "llm", raw)
                log.info("model rewrite %r rejected: %s", raw, reason)
                keywords = keyword_query(question, self.max_keywords)
                return Rewrite(" ".join(keywords), keywords, "rejected", raw, reason)
        keywords = keyword_query(question, self.max_keywords)
        return Rewrite(" ".join(keywords), keywords, "fallback" if self.llm else "keywords", raw)
