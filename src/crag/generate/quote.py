"""The explanation after the short answer is the source's own sentence, not the model's.

Why: asked for the short answer and one sentence that explains it, the packaged 1.5B reader
mostly copies the sentence of its source that holds the answer (often the whole strip: two or
three sentences, 30–100 tokens), at about 58 ms a generated token on 2 cores; it is also where
an off-topic or unsupported sentence slips in (the demo's bee answer was explained by a
sentence about colony size). The short answer comes first, so the reading can stop right after
its citation (`STOP`) and the sentence that states it is taken from the source verbatim: the
same words a faithful explanation would copy, always backed by the source it cites, for none of
the generation time. With `generate.explain = "model"` the model writes it, as before.

`quote(short, question, text)` is the sentence of `text` that holds the short answer (its words
in order, folded as the answer check folds them; or, for a paraphrased answer, most of its
content words) and ties it closest to the question (`crag.generate.alignment`), taken from the
text as the reader was shown it: invisible characters, text under a bidi override and
sentences that speak to an AI (`crag.generate.framing`, `crag.generate.instructions`) are not
there, and a quote must not carry them to the user either. A Markdown source's sentence is
quoted as its page reads (`crag.headings.inline_text`: link text without its target, no HTML
tags), unless that would lose the short answer (a URL asked for).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from crag.generate.alignment import alignment
from crag.generate.citations import STRIP_JOIN
from crag.generate.framing import readable, without_special_tokens
from crag.generate.instructions import drop_instructions, is_instruction
from crag.generate.matching import find_in_sources, span_of
from crag.headings import inline_text
from crag.refine.rewrite_check import content_forms, content_words, forms
from crag.refine.sentences import BULLET, sentences

__all__ = ["MAX_QUOTE", "STOP", "Explain", "close_draft", "close_marker", "quote"]

Explain = Literal["quote", "model"]
# The reading stops at the end of the short answer's citation: "May 27, 1937 [1]." A reply
# that does not follow the format runs on to its end (or max_tokens) and is checked as before.
STOP = ("].", "]\n", "]。")
_OPEN = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*$")
_EDGE = re.compile(r"^[\s…]+|[\s…]+$")
MAX_QUOTE = 280  # characters of a quoted sentence: one a reader takes in at a glance
# where a clause opens inside a long run of text: after a bar, colon, semicolon or stop and
# space, before a capital ("…|bdirectories:.| The magic-deleteall attribute, which …")
_CLAUSE = re.compile(r"[|:;.!?)\]]\s+(?=[A-Z])")
# Wikipedia's editorial brackets copied into a page's text: no part of what the source states.
_EDITORIAL = re.compile(
    r"\s*\[(?:citation needed|clarification needed|according to whom\?|who\?|when\?|which\?|"
    r"dubious[^\]]{0,40}|verification needed|page needed|not in citation given|"
    r"better source needed|note \d+|(?-i:[a-z]))\]",  # a footnote letter: "[a]", not "&[T]"
    re.IGNORECASE,
)
# Numbers in brackets that are no footnote: a list ("[3, 4, 5]") or an index from 0 ("buf[0]"),
# code's. Quoted, the answer check would read them as citation marks and renumber them.
_CODE_BRACKETS = re.compile(r"\[\s*(?:\d+(?:\s*,\s*\d+)+|0)\s*\]")


def close_marker(text: str) -> str:
    """`text` with the citation the stop cut off closed again: "Paris [2" → "Paris [2]."."""
    text = text.rstrip()
    return f"{text}]." if _OPEN.search(text) else text


def close_draft(streamed: str, reply: str, on_token: Callable[[str], None]) -> None:
    """The streamed draft ends where the stop cut it ("The waggle dance [3"): stream the end
    of the citation that the reply closed again, so a reader watching the tokens sees it
    closed ("[3].")."""
    cut = streamed.rstrip()
    if cut and reply != cut and reply.startswith(cut):
        on_token(reply[len(cut) :])


def _paraphrase_share(short: str, sentence: str) -> float:
    """Share of the short answer's content words that the sentence holds (any form)."""
    wanted = [forms(w) for w in content_words(short)]
    if not wanted:
        return 0.0
    have = content_forms(sentence)
    return sum(1 for f in wanted if f & have) / len(wanted)


def quote(short: str, question: str, text: str, min_share: float = 0.5) -> str | None:
    """The sentence of `text` that states `short` as the answer to `question`; None when no
    sentence holds it (nor, for a paraphrase, `min_share` of its content words)."""
    text, _ = drop_instructions(readable(text))  # what the reader was shown of it
    text = without_special_tokens(text)
    page = inline_text(text)  # as the page reads: no link targets, no README HTML
    if find_in_sources(short, {0: page}) or not find_in_sources(short, {0: text}):
        text = page  # (else the answer is in what the page hides: a link's URL)
    # each strip on its own: an option entry opens with no capital ("… -t, --list list the
    # contents"), and the next strip would run on in the sentence before it
    pieces = (s for part in text.split(STRIP_JOIN) for s in sentences(part))
    said = [
        s
        for s in (BULLET.sub("", _EDGE.sub("", s)) for s in pieces)  # a bullet says nothing
        if s and not is_instruction(s) and not _CODE_BRACKETS.search(s)
    ]
    holding = [s for s in said if find_in_sources(short, {0: s})]
    if not holding:
        shares = [(_paraphrase_share(short, s), s) for s in said]
        best = max((share for share, _ in shares), default=0.0)
        if best < min_share:
            return None
        holding = [s for share, s in shares if share == best]
    # max() keeps the first of equals: the earlier sentence wins a tie
    said_best = _EDITORIAL.sub("", max(holding, key=lambda s: alignment(question, short, s)))
    return _window(said_best, short)


def _window(sentence: str, short: str) -> str:
    """A "sentence" longer than MAX_QUOTE cut to the part around the short answer, opening
    where a clause does if one opens before the answer ("| The magic-deleteall attribute …"),
    each cut marked "[…]" as in a quotation (a bare "…" would take the citation before it,
    and lose the space after the answer's own citation). Why: text without full stops — a
    PDF's table or hex dump, a man page's option list — is one "sentence" of many lines, and
    the quote ran on for 400 characters of it before the sentence that states the answer."""
    if len(sentence) <= MAX_QUOTE:
        return sentence
    span = span_of(short, sentence) or (0, 0)
    room = max(0, MAX_QUOTE - (span[1] - span[0]))
    lo = max(0, span[0] - room // 2)
    hi = min(len(sentence), max(span[1], lo) + room - (span[0] - lo))
    lo = max(0, min(lo, hi - MAX_QUOTE))  # room the end did not use goes to the start
    opens = [m.end() for m in _CLAUSE.finditer(sentence, lo, span[0] + 1)]
    if opens:
        lo = opens[-1]
    elif lo and (space := sentence.find(" ", lo, span[0])) >= 0:
        lo = space + 1
    if hi < len(sentence) and (space := sentence.rfind(" ", span[1], hi)) >= 0:
        hi = space
    head = "[…] " if lo else ""
    tail = " […]" if hi < len(sentence) else ""
    return f"{head}{sentence[lo:hi].strip()}{tail}"
