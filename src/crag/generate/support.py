"""Attribution check: is each sentence of an answer backed by the sources it cites?

A small generator, given sources that do not hold the answer, may still answer from its own
memory and cite a source anyway ("tungsten boils at 3400 °C [3]", [3] being about a
lighthouse). Before an answer leaves crag, every sentence is checked: the content words it
adds — its terms minus the question's terms and function words, stemmed by the same analyzer
as the keyword index — must mostly occur in the sources it cites (all sources, for a sentence
without a marker). Sentences below `min_support` are dropped and named in the trace; an
answer left with nothing is a refusal. This is a lexical check, cheap and strict about facts
(numbers and names must appear in the source); the Self-RAG mode adds a model-judged one.
Sentences are cut by `answer_sentences`, so a marker after the full stop stays with its
sentence, and a piece with no words at all (an answer that is only "[3]") has support 0: it
says nothing a source could back, and must not pass as a fully supported sentence.

Small models often state a sourced fact but cite the wrong number ("… false assurances [2]"
when [1] says it): dropping such a sentence turns a right answer into a refusal (3 of the 4
answers lost this way in a 40-question SQuAD run). So each cited sentence also records the
single source that supports it best; the generator re-cites a sentence to that source when
it, and not the cited one, reaches `min_support`. The claim is held to the same bar; only the
pointer is corrected, and the correction is named in the trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crag.generate.citations import (
    MARK,
    answer_sentences,
    cited_numbers,
    close_gaps,
    has_words,
)
from crag.index.analyzer import Analyzer

__all__ = ["SupportCheck", "recite", "supported_sentences"]

_FUNCTION_WORDS = {
    "english": "the a an is are was were be been being of in on at to for with and or by it its "
    "this that these those as from which who whom what when where how than then also there their "
    "they he she his her has have had not no yes about approximately around some can could will "
    "would about into over under after before during",
    "turkish": "bir ve ile bu şu o da de mi mı mu mü için gibi olarak olan çok daha en ne kim "
    "nerede nasıl zaman hangi kadar",
}


@dataclass(frozen=True, slots=True)
class SupportCheck:
    sentence: str
    cited: tuple[int, ...]
    support: float
    # the source backing it best: for a cited sentence not fully backed, or one citing nothing
    best: int | None = None
    best_support: float = 0.0
    words: int = 0  # content words checked: none for "Yes" or the question's own words


def supported_sentences(
    answer: str, question: str, sources: dict[int, str], language: str = "en"
) -> list[SupportCheck]:
    """Support in [0, 1] of each sentence of `answer` by the sources it cites."""
    analyzer = Analyzer("turkish" if language == "tr" else "english")
    stop = set(analyzer.terms(_FUNCTION_WORDS["turkish" if language == "tr" else "english"]))
    asked = set(analyzer.terms(question))
    source_terms = {n: set(analyzer.terms(text)) for n, text in sources.items()}
    every = set().union(*source_terms.values()) if source_terms else set()
    checks = []
    for sentence in answer_sentences(answer):
        cited = cited_numbers(sentence)
        body = MARK.sub(" ", sentence)
        content = {t for t in analyzer.terms(body) if t not in stop and t not in asked}
        content = {t for t in content if len(t) > 1 or t.isdigit()}
        backing = set().union(*(source_terms.get(n, set()) for n in cited)) if cited else every
        if not has_words(body):
            support = 0.0  # markers and punctuation only
        else:
            support = 1.0 if not content else len(content & backing) / len(content)
        best, best_support = None, 0.0
        if content and (not cited or support < 1.0):  # uncited: where to cite it
            best, best_support = max(
                ((n, len(content & terms) / len(content)) for n, terms in source_terms.items()),
                key=lambda pair: pair[1],
                default=(None, 0.0),
            )
        checks.append(SupportCheck(sentence, cited, support, best, best_support, len(content)))
    return checks


def recite(sentence: str, n: int) -> str:
    """`sentence` citing source `n` alone: its first marker becomes `[n]`, the others go.
    The same answer said again for each source it cites ("audit-level [1], audit-level [2],
    audit-level [3].", which the model writes where several sources hold it) is said once:
    without its markers the sentence read "audit-level [3], audit-level, audit-level.", and
    "audit-level [1], [2], [3]." read "audit-level [3],,."."""
    first = MARK.search(sentence)
    if first is None:
        return sentence
    head = sentence[: first.start()]
    rest = MARK.sub("", sentence[first.end() :])
    if _only_repeats(rest, head):
        rest = rest.rstrip()[-1:] if rest.rstrip()[-1:] in (".", "!", "?") else ""
    return close_gaps(f"{head}[{n}]{rest}")


_LIST_SEPARATOR = re.compile(r"\s*(?:[,;]|\band\b|\bor\b)\s*", re.IGNORECASE)


def _only_repeats(rest: str, head: str) -> bool:
    """`rest` is nothing but `head` said again, in a list ("," "and" "or"), or only the
    list's separators ("1.0.0 [1], [2], [3].")."""
    said = " ".join(head.split()).casefold()
    parts = [p for p in _LIST_SEPARATOR.split(rest.strip().rstrip(".!?")) if p.strip()]
    return bool(said) and all(" ".join(p.split()).casefold() == said for p in parts)
