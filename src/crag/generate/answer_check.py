"""The answer check: what a model wrote becomes an answer only with a source that holds it.

The generator's reply is read sentence by sentence:

1. The first sentence carries the short answer. Its citation is assigned by matching: the
   source whose text holds the short answer's words is where it comes from (the model's `[n]`
   only breaks ties, `crag.generate.matching`). A short answer found in no source may still
   stand when its content words are in one (a paraphrase, "about 8,800 metres") and it adds
   no name or number that neither the question nor that source holds; otherwise it is not an
   answer.
2. Every further sentence must be backed by the source it cites (the attribution check of
   `crag.generate.support`); a wrong `[n]` is re-cited to the source that backs it, an
   unbacked sentence is dropped and named in the trace.
3. URLs, e-mail addresses and phone numbers must occur in the source their sentence cites —
   an instruction hidden in a document cannot put its link into an answer.
4. The passage that holds the answer must state it as the answer: `verify(question, answer,
   passage)` (the generator's model asked yes/no, `crag.generate.verify`), when given, must
   reach `verify_cut`; without a verifier, when the evaluator was not sure of the retrieval
   (AMBIGUOUS, or web strips), the passage's own score must reach `evidence_floor`. A
   same-topic passage that merely contains a plausible phrase is not evidence. When the
   evaluator said CORRECT, only a short answer no source holds as written is verified: one
   accepted on its content words may have added a word of the model's own ("Valgrind comes
   from the French word 'val'", three of its words in a passage on how to pronounce it). A
   bare "Yes" or "No" has no words to check, and the verifier cannot judge one: it is not.
5. An answer left with no citation is not an answer.

Any failure yields `reason` (why it was refused) instead of an answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from crag.generate.citations import (
    MARK,
    Source,
    answer_sentences,
    check_citations,
    cited_numbers,
    close_gaps,
)
from crag.generate.matching import (
    added_names,
    find_in_sources,
    locate,
    short_answer,
    unsourced_contacts,
)
from crag.generate.quote import quote as quote_sentence
from crag.generate.support import SupportCheck, recite, supported_sentences
from crag.refine.rewrite_check import content_forms, content_words, forms
from crag.refine.strips import in_section
from crag.types import Citation, Strip

__all__ = ["VERIFY_CUT", "Checked", "Verification", "check_answer", "cite"]

_END = re.compile(r"([.!?…]*)\s*$")
# The prompt asks for the short answer and at most one sentence that explains it; a small model
# sometimes copies its whole source after the answer. Two sentences are kept at most.
MAX_EXPLANATION = 2
# The verification's P(yes) an answer must reach by default (`generate.verify_cut`; chosen on
# tuning questions, see crag.pipeline.build.verify_cut).
VERIFY_CUT = 0.75


@dataclass(frozen=True, slots=True)
class Verification:
    """One verification asked: the short answer, the source it was checked against, the
    model's P(yes) (NaN: unknown, which never refuses) and the cut it had to reach. Kept
    typed (the trace, `crag calibrate --answers`, which fits the cut to a collection)."""

    short: str
    source: int
    p_yes: float
    cut: float

    @property
    def passed(self) -> bool:
        return math.isnan(self.p_yes) or self.p_yes >= self.cut


@dataclass(slots=True)
class Checked:
    text: str = ""
    citations: list[Citation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    support: float = 1.0
    reason: str = ""  # set when the reply cannot be returned as an answer
    evidence: int | None = None  # the source that holds the short answer
    short: str = ""
    verified: Verification | None = None  # the verification asked, if any


def cite(sentence: str, n: int, short: str = "") -> str:
    """`sentence` citing source `n` alone (a marker added before its final stop if it had none).

    A "!" or "?" that ends the short answer `short` where the sentence ends is the answer's own
    (Vim's ":qall!"): the marker goes after it, and a stop after the marker ends the sentence
    (":qall! [3]."), where ":qall [3]!" would change the command."""
    if MARK.search(sentence):
        return recite(sentence, n)
    if short[-1:] in ("!", "?") and sentence.rstrip().endswith(short):
        return close_gaps(f"{sentence.rstrip()} [{n}].")
    body = _END.sub("", sentence)
    stop = _END.search(sentence)
    return close_gaps(f"{body} [{n}]{stop.group(1) if stop else ''}")


_LETTER = re.compile(r"[^\W\d_]")  # a letter of any script


def _repeats(sentence: str, said: set[str]) -> bool:
    """Every content word of `sentence` is already said (`said`: the `content_forms` of the
    question and the short answer): "Hagen threw gold into the Rhine by Hagen [1]." after
    "Hagen [1]." tells nothing."""
    return all(forms(w) & said for w in content_words(MARK.sub("", sentence)))


def _line(text: str) -> str:
    return " ".join(text.split())


def _holding(strips: list[Strip], source: Source, short: str) -> list[Strip]:
    """The source's strips that hold the short answer as a span (all of them if none does)."""
    own = [s for s in strips if s.chunk.id == source.chunk.id]
    return [s for s in own if find_in_sources(short, {0: s.text})] or own


def _quoted(
    short: str, question: str, body: str, n: int, said: set[str], rest: list[str], notes: list[str]
) -> list[str]:
    """The evidence source's sentence that states the short answer, citing it (none when no
    sentence holds the answer or it only repeats the question and answer). The source's own
    `[n]` footnotes are taken out: here they would read as citations of crag's sources."""
    if rest:
        notes.append(f"the model's {len(rest)} sentence(s) after the short answer: replaced by "
                     "its source's own")  # fmt: skip
    sentence = quote_sentence(short, question, body)
    if sentence is None:
        notes.append(f"no sentence of [{n}] states {short!r}: no explanation quoted")
        return []
    sentence = close_gaps(MARK.sub("", sentence))
    return [] if _repeats(sentence, said) else [cite(sentence, n, short)]


def _best_score(strips: list[Strip]) -> float:
    """Best known score among `strips`; NaN when none was scored."""
    known = [s.score for s in strips if not math.isnan(s.score)]
    return max(known) if known else math.nan


def check_answer(
    reply: str,
    question: str,
    sources: list[Source],
    strips: list[Strip],
    language: str,
    *,
    min_support: float = 0.5,
    evidence_floor: float | None = None,
    verify: Callable[[str, str, str], float] | None = None,
    verify_cut: float = VERIFY_CUT,
    quote: bool = False,
    verify_found: bool = True,
) -> Checked:
    """Check a generator reply (marker already removed) against the numbered sources.
    `quote`: the explanation is the evidence source's own sentence, not the model's.
    `verify_found=False` verifies only a short answer no source holds as written (accepted
    on its content words): the evaluator said CORRECT, which vouches for the passages, not
    for words the model put together itself."""
    text, _, notes = check_citations(reply, sources)
    out = Checked(notes=notes)
    by_n = {s.n: s for s in sources}
    bodies = {s.n: s.findable for s in sources}  # a heading in the label may hold the answer
    sentences = answer_sentences(text)
    if not sentences:
        out.reason = "the model returned an empty answer"
        return out
    first, rest = sentences[0], sentences[1:]
    out.short = short_answer(first)
    where = locate(first, bodies, hint=cited_numbers(first))
    if where:
        if not verify_found:
            verify = None  # found as written, in passages the evaluator vouched for
        out.evidence = where[0]
        if cited_numbers(first) != (where[0],):
            notes.append(f"cited the short answer {out.short!r} to [{where[0]}], which holds it")
        first = cite(first, where[0])
    elif min_support > 0:
        check = supported_sentences(first, question, bodies, language)[0]
        n: int | None
        if check.cited:
            backing = check.best if check.best_support > check.support else None
            n = backing or check.cited[0]
            best = max(check.support, check.best_support)
        else:  # cited nothing: the one source whose words back it best is its citation
            # (the model's [n] is a hint, not the attribution); a sentence no single source
            # backs is refused below. Before, an uncited paraphrase was refused whatever its
            # support ("found in no source (support 1.00)")
            n, best = check.best, check.best_support
        if n is None or best < min_support:
            out.reason = "the generated answer was not supported by the retrieved sources"
            notes.append(f"short answer {out.short!r} found in no source (support {best:.2f})")
            return out
        if not verify_found and not check.words:
            # a bare "Yes": no words of its own to check, and none the verifier can judge
            # (benchmarks.md, "A bare yes or no verified under a CORRECT verdict")
            verify = None
        if added := added_names(out.short, question, bodies[n]):
            out.reason = "the generated answer was not supported by the retrieved sources"
            notes.append(
                f"short answer {out.short!r} says {', '.join(map(repr, added))}, which neither "
                f"the question nor [{n}] holds"
            )
            return out
        out.evidence = n
        if check.cited != (n,):
            notes.append(
                f"re-cited a sentence to [{n}] (support {best:.2f}; its citation "
                f"{list(check.cited)} gave {check.support:.2f}): {first!r}"
            )
        first = cite(first, n)
    kept = [first]
    checks: list[SupportCheck] = []
    said = content_forms(f"{question} {first}")
    if quote and out.evidence is not None:
        body = by_n[out.evidence].text  # quoted: the text's own
        kept += _quoted(out.short, question, body, out.evidence, said, rest, notes)
        rest = []
    repeats = [r for r in rest if _repeats(r, said)]
    if repeats:
        notes.append(f"dropped {len(repeats)} sentence(s) that only repeat the question and answer")
        rest = [r for r in rest if r not in repeats]
    bare = [r for r in rest if not _LETTER.search(MARK.sub("", r))]
    if bare:  # "(2) [1]": a defanged fake citation copied out of a source says nothing
        notes.append(f"dropped {len(bare)} sentence(s) with no words, only numbers or marks")
        rest = [r for r in rest if r not in bare]
    if len(rest) > MAX_EXPLANATION:
        notes.append(f"kept the first {MAX_EXPLANATION} sentences after the short answer")
        rest = rest[:MAX_EXPLANATION]
    if rest and min_support > 0:
        checks = supported_sentences(" ".join(rest), question, bodies, language)
        for c in checks:
            if c.support >= min_support and not c.cited:  # every claim cites its source
                n = c.best if c.best and c.best_support >= min_support else out.evidence
                kept.append(cite(c.sentence, n) if n else c.sentence)
            elif c.support >= min_support:
                kept.append(c.sentence)
            elif c.best and c.best_support >= min_support:
                kept.append(recite(c.sentence, c.best))
                notes.append(f"re-cited a sentence to [{c.best}]: {c.sentence!r}")
            else:
                notes.append(
                    f"dropped a sentence its sources do not support ({c.support:.2f} < "
                    f"{min_support}): {c.sentence!r}"
                )
    else:
        kept += rest
    for i, sentence in enumerate(list(kept)):
        cited = [bodies[n] for n in cited_numbers(sentence) if n in bodies] or list(bodies.values())
        leaked = unsourced_contacts(sentence, cited)
        if leaked:
            notes.append(f"dropped a sentence whose {', '.join(leaked)} no cited source holds")
            if i == 0:
                out.reason = "the answer held contact details that its sources do not"
                return out
            kept.remove(sentence)
    if out.evidence is not None and (evidence_floor is not None or verify is not None):
        source = by_n[out.evidence]
        evidence = _holding(strips, source, out.short)
        if verify is not None:
            # each strip on one line, as the reader read it (a strip keeps a block's break
            # for its quotes: crag.refine.strips), after its section's heading where it is
            # not the section's first (Strip.lead); the label keeps its own line
            text = " … ".join(_line(t) for t in in_section(evidence)) or _line(source.text)
            p = verify(question, out.short, replace(source, text=text).shown)
            notes.append(f"verified {out.short!r} against [{out.evidence}]: P(yes) {p:.2f}")
            out.verified = Verification(out.short, out.evidence, p, verify_cut)
            if not out.verified.passed:
                # the passage holds the proposed answer, not necessarily *the* answer: say so
                out.reason = (
                    "the passage the proposed answer comes from does not state it as the "
                    "answer to this question"
                )
                return out
        # a NaN score compares False: an unknown score does not refuse
        elif evidence_floor is not None and (score := _best_score(evidence)) < evidence_floor:
            out.reason = "the passage the proposed answer comes from is not about the question"
            notes.append(
                f"the evidence for {out.short!r} in [{out.evidence}] scored {score:.2f}, below "
                f"{evidence_floor:.2f}"
            )
            return out
    out.text, out.citations, _ = check_citations(" ".join(kept), sources)
    if not out.citations:
        out.reason = "the answer cites no source"
        return out
    scores = [c.support for c in checks if c.sentence in kept or c.support >= min_support]
    out.support = min(scores, default=1.0)
    return out
