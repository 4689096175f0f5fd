"""Knowledge refinement: decompose retrieved chunks into strips, score them, recompose.

CRAG's decompose-then-recompose (Yan et al. 2024, §4.4), in the three modes of the official
code (`CRAG/scripts/internal_knowledge_preparation.py`):

- `selection`: each chunk is one strip (whole-passage selection);
- `excerption`: runs of three sentences (`excerpt_sentences`), never longer than
  `excerpt_chars` (sentences as `crag.refine.sentences` cuts them: at `.`/`!`/`?` followed by
  a space and a capital or digit, or at a blank line; Markdown headings are dropped, they
  hold no answer);
- `fixed_num`: fixed windows of `window_words` words (50 in the paper).

Every strip is scored by the same retrieval evaluator as the chunks, and what the generator
reads is decided from ranks and scores together: the best strip of each of the
`keep_best_of` leading chunks (by the evaluator's chunk score, else in the order they came) is
always kept — a strip's score alone can
sit at noise level, and the best evidence must not be dropped on a few hundredths ("Buzz Aldrin
… the second person to walk on it" scored 0.228 against a floor of 0.23 and was lost) — and the
remaining places up to `top_k` go to the best-scored strips at or above `floor`. The kept
strips are recomposed in reading order (chunk rank, then position in the chunk), so the
generator reads them in a stable, sensible order. Irrelevant sentences inside a relevant chunk
are dropped before they can distract a small generator, and the generator reads less: three
kept excerpts (the default `top_k`) are about 180 words on SQuAD, five were about 290 — nearly
what plain RAG reads, at about 17 ms a prompt token on 2 cores.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from crag.headings import link_text, sections
from crag.refine.sentences import sentence_blocks
from crag.titles import names, with_title
from crag.types import Chunk, Strip

if TYPE_CHECKING:  # a protocol for annotations only: grading's trainer imports this module
    from crag.grading.base import RetrievalEvaluator

__all__ = [
    "RefineMode",
    "Refiner",
    "decompose",
    "in_section",
    "option_entry",
]

RefineMode = Literal["selection", "excerption", "fixed_num"]
_COMPOUND = re.compile(r"\w+(?:[-_.]\w+)+")  # one name joined by "-", "_" or "." (no space)
# An entry of an option list, as a man page or --help writes it: the option first, then its
# description ("-t sort by time", "-T, --tabsize=COLS assume …", "-i[SUFFIX], --in-place",
# "-1 list one file per line"); a number ("-40 degrees") is not one. As Markdown writes an
# option list (a manual's HTML through trafilatura, a README): a list item whose option is code
# or bold ("- `--num-callers=<number> [default: 12]`", "* **-k**"); as an Info manual's table
# writes one, between quotes ("‘-n’, ‘--quiet’").
_OPTION_ENTRY = re.compile(
    r"(?:[-*+][ \t]+)?(?:[`'‘]|\*\*)?--?(?:[^\W\d_][\w?-]*|\d)(?:[=\[,`'’*]|\s|$)"
)


def option_entry(text: str) -> bool:
    """`text` opens with an option, as an entry of a man page's option list does. Such a
    strip is scored with its document's title: an entry rarely names its command ("-k --keep
    Keep (don't delete) input files" is gzip's), and without it scored 0.06 against 0.62 for
    "Which gzip option keeps the input files?", below a fragment that says "gzip"."""
    return _OPTION_ENTRY.match(text) is not None


def _heading_named(strip: str, heading: str) -> bool:
    """The strip already says its heading, so the heading need not open it. A heading that
    is one compound name (`audit-level`, `SCHED_RR`, `os.path.join`) is said only by that name
    itself: npm's config option `audit-level` was not added to its entry ("Default: null …
    The minimum level of vulnerability for `npm audit` to exit with a non-zero exit code"),
    whose words "audit" and "level" stood apart, and the reader answered "Default: null" for
    which config sets that level."""
    if _COMPOUND.fullmatch(heading):
        return re.search(rf"(?<![\w.-]){re.escape(heading)}(?![\w-])", strip, re.I) is not None
    return names(strip, heading)


def _joined(group: list[tuple[str, bool]]) -> str:
    """A strip's sentences on one line, except after one that ends a block (a title, a list
    item, a code line): that break stays, as a blank line, where `sentences` cuts again. The
    reader's prompt puts each source on one line anyway; the quote cut from the strip must not
    run on over the break ("*04.3* Repeating a change The "." command …", "… cannot read
    from. * ``130`` -- …"). A lead-in that ends with a colon stays with what it introduces."""
    gaps = ("\n\n" if ends and not s.endswith(":") else " " for s, ends in group)
    return "".join(s + gap for (s, _), gap in zip(group, gaps, strict=True)).rstrip()


def _excerpts(text: str, per_strip: int, max_chars: int, fence: str = "") -> list[tuple[str, str]]:
    """Strips of up to `per_strip` sentences (and about `max_chars`), none across a Markdown
    heading; the first strip under a heading starts with it ("Event: 'connection'. Emitted
    when a new connection is made."): in API docs the heading is often the only place that
    names what the section's sentences are about, and a strip without it loses the answer.
    Likewise a strip never runs from one entry of an option list into the next: each entry
    of a man page ("-t sort by time, newest first") opens a strip, so its option is scored
    and read with its own description, not diluted by the two options beside it. And a strip
    does not end on a sentence that ends with a colon: it introduces what follows ("Or, to
    include the optional HTTP/2 support, use:" and the command after it, in a code block of
    its own), and apart they lose the answer — the lead-in names the question's words, the
    code line holds the answer. Each strip comes with its lead: its section's heading where the
    strip is not the section's first (`Strip.lead`), else "". `fence`: the text starts inside a
    code block of that fence (`crag.headings.Headings.fence_at`)."""
    out: list[str] = []
    leads: list[str] = []
    for heading, body in sections(text, fence):
        first = len(out)
        group: list[tuple[str, bool]] = []
        for sentence, ends in sentence_blocks(body):
            if group and (
                (len(group) >= per_strip and not group[-1][0].endswith(":"))
                or len(" ".join(s for s, _ in group)) + len(sentence) > max_chars
                or option_entry(sentence)
            ):
                out.append(_joined(group))
                group = []
            group.append((sentence, ends))
        if group:
            out.append(_joined(group))
        lead = (heading if heading[-1] in ".:?!" else f"{heading}.") if heading else ""
        if lead and len(out) > first and not _heading_named(out[first], heading):
            # (a heading with nothing under it is no strip; one its strip names is not added)
            out[first] = f"{lead} {out[first]}"
        leads += ([""] + [lead] * (len(out) - first - 1)) if len(out) > first else []
    return list(zip(out, leads, strict=True))


def _led(strip: Strip) -> str:
    """The strip's text after its lead (`Strip.lead`), as it is read alone."""
    return f"{strip.lead} {strip.text}" if strip.lead else strip.text


def in_section(strips: list[Strip]) -> list[str]:
    """The texts of `strips` (in reading order) as they are read together: a strip after
    its lead (`Strip.lead`) unless it follows the strip just before it in its chunk, which
    opened the section or was itself read after the lead."""
    out: list[str] = []
    for i, strip in enumerate(strips):
        follows = i > 0 and strips[i - 1].chunk.id == strip.chunk.id
        follows = follows and strips[i - 1].order == strip.order - 1
        out.append(strip.text if follows else _led(strip))
    return out


def decompose(
    chunks: list[Chunk],
    mode: RefineMode,
    *,
    excerpt_sentences: int = 3,
    excerpt_chars: int = 600,
    window_words: int = 50,
) -> list[Strip]:
    """Split chunks into strips; `order` numbers them in reading order across all chunks."""
    strips: list[Strip] = []
    for chunk in chunks:
        if mode == "selection":
            pieces = [(chunk.text, "")]
        elif mode == "excerption":
            fence = chunk.metadata.get("code_fence")  # it starts inside a code block
            fence = fence if isinstance(fence, str) else ""
            pieces = _excerpts(chunk.text, excerpt_sentences, excerpt_chars, fence)
        elif mode == "fixed_num":
            words = chunk.text.split()
            pieces = [
                (" ".join(words[i : i + window_words]), "")
                for i in range(0, len(words), window_words)
            ]
        else:
            raise ValueError(f"refine.mode must be selection, excerption or fixed_num: {mode!r}")
        for piece, lead in pieces:
            if piece.strip():
                strips.append(Strip(piece.strip(), chunk, order=len(strips), lead=lead))
    return strips


def _known(score: float) -> float:
    return 0.0 if math.isnan(score) else score


@dataclass(slots=True)
class Refiner:
    """Decompose → score → keep top k above the floor → recompose in reading order."""

    evaluator: RetrievalEvaluator
    mode: RefineMode = "excerption"
    top_k: int = 3  # refine.top_k: see crag.config._stages for why 3
    floor: float = 0.0
    keep_best_of: int = 2  # the best strip of each of the first n chunks is always kept
    excerpt_sentences: int = 3
    excerpt_chars: int = 600
    window_words: int = 50

    def decompose(self, chunks: list[Chunk]) -> list[Strip]:
        """Strips of `chunks` in this refiner's mode and sizes (reading order)."""
        return decompose(
            chunks,
            self.mode,
            excerpt_sentences=self.excerpt_sentences,
            excerpt_chars=self.excerpt_chars,
            window_words=self.window_words,
        )

    def refine(
        self,
        question: str,
        chunks: list[Chunk],
        known: dict[str, float] | None = None,
        *,
        titled: bool = False,
    ) -> tuple[list[Strip], list[Strip]]:
        """Return (kept strips in reading order, all scored strips).

        `known` maps chunk ids to scores the evaluator already gave the whole chunk; in
        `selection` mode a strip is the whole chunk, so those are reused, not recomputed.
        `titled`: strips are scored with their document's title, as the reranker read their
        chunks (`crag.titles`; the verdict reads chunks without it).
        """
        return self.select(question, self.decompose(chunks), known, titled=titled)

    def select(
        self,
        question: str,
        strips: list[Strip],
        known: dict[str, float] | None = None,
        *,
        titled: bool = False,
    ) -> tuple[list[Strip], list[Strip]]:
        """Score `strips` and keep the top k at or above the floor, in reading order."""
        if not strips:
            return [], []
        known = known or {}
        if self.mode == "selection" and all(s.chunk.id in known for s in strips):
            scores = [known[s.chunk.id] for s in strips]
        else:
            # scored as the page reads, a link by its text (`link_text`), a later strip of a
            # section after its heading (`Strip.lead`): each strip is scored alone
            texts = [
                link_text(
                    with_title(s.chunk, _led(s)) if titled or option_entry(s.text) else _led(s)
                )
                for s in strips
            ]
            scores = self.evaluator.score(question, texts)
        scored = [replace(s, score=float(v)) for s, v in zip(strips, scores, strict=True)]

        def rank(s: Strip) -> tuple[bool, float, int]:
            return (math.isnan(s.score), -_known(s.score), s.order)

        # The best strip of each leading chunk, whatever its score; then the rest at or above
        # the floor, best first, then unknown (NaN) ones — the evaluator could not say they are
        # irrelevant, so the floor does not drop them.
        arrival = {cid: i for i, cid in enumerate(dict.fromkeys(s.chunk.id for s in scored))}
        # leading chunks: best chunk score first (unknown last), then the order they came in
        leading = sorted(arrival, key=lambda cid: (-_known(known.get(cid, math.nan)), arrival[cid]))
        leading = leading[: self.keep_best_of]
        kept = [min((s for s in scored if s.chunk.id == cid), key=rank) for cid in leading][
            : self.top_k
        ]
        chosen = {s.order for s in kept}
        eligible = [
            s
            for s in scored
            if s.order not in chosen and (math.isnan(s.score) or s.score >= self.floor)
        ]
        kept += sorted(eligible, key=rank)[: max(0, self.top_k - len(kept))]
        return sorted(kept, key=lambda s: s.order), scored
