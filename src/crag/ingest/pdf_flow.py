"""A PDF page's text as it reads: footnotes apart from the text, sentences whole across pages,
accents on their letters.

Why each part (measured on three of R's manuals as TeX typesets them, 206 pages):
- **Footnotes.** A typesetter sets a footnote's mark as a small raised number glued to the
  word ("limited³"), and the footnote itself at the foot of the page. pypdf returns
  "limited3 to about 4095 bytes" and the footnote as the page's last lines, which
  `crag.ingest.pdf_lines.unwrap` then joined to the text's last sentence ("… elements of x. 3
  paste(..., collapse=ss) joins the arguments …"), and ".RData5" is not the name a question
  asks for. pypdf reports each run of text with its size (`crag.ingest.pdf_fonts.Runs`): a
  run of digits set small (≤ MARK_RATIO of the body size) that is followed by text of the
  footnotes' smaller size is a footnote's number, if its mark is on the page too: followed by
  body text, such a run is a mark. (A code listing's line numbers are set small before smaller
  code, and have no marks: in 60 of TeX Live's package manuals, docstrip listings were taken
  for footnotes until that rule.) The footnotes are set apart after a blank line, and each
  mark is taken off its word. A small number without a footnote on its page (an exponent, a
  chemical formula's index) is left as it is.
- **Sentences across pages.** crag keeps a document per page so a citation names the page;
  a sentence a page break cut was two fragments in two chunks ("The arguments are by default
  separated in the result by a single blank character," | "but this can be changed by …"),
  and neither was read. A page whose text ends inside a sentence (a letter, a digit, a comma,
  a hyphen) in a line as wide as the page's lines, followed by a page whose first line goes
  on in lower case, gets that sentence's rest, up to its end or MAX_CARRY characters, moved
  to it; the citation names the page the sentence starts on.
- **Accents and ligatures.** TeX's older fonts set an accent as a glyph of its own before
  its letter, and pypdf returns "Wirtschaftsuniversit¨at", "Fran¸cois": two words for
  keyword search, and an answer spelled so. A spacing accent before a letter it composes
  with (Unicode NFC) is put on it. A ligature ("ﬁ" in "deﬁnes") is written as its letters.
"""

from __future__ import annotations

import re
import unicodedata

from crag.ingest.pdf_lines import hyphen_join

__all__ = [
    "MARK_RATIO",
    "MAX_CARRY",
    "NOTE_REACH",
    "accented",
    "carry_sentences",
    "footnotes",
]

MARK_RATIO = 0.8  # a footnote's number is set at most this share of the body size
MAX_CARRY = 400  # characters of a sentence's rest moved back across a page break
NOTE_REACH = 200  # the last lines of a page where its first footnote may start
_OPENING = 20  # characters of a footnote's first run that find its line
_NOTE_SIGNS = "*∗†‡§¶"  # a footnote marked with a sign, not a number
# spacing accents as TeX's OT1 fonts set them, and the combining mark each stands for
_ACCENTS = {
    "¨": "\u0308", "´": "\u0301", "ˆ": "\u0302", "˜": "\u0303", "¸": "\u0327", "ˇ": "\u030c",
    "˘": "\u0306", "˚": "\u030a", "˝": "\u030b", "¯": "\u0304", "˙": "\u0307", "˛": "\u0328",
    "`": "\u0300", "ˋ": "\u0300",
}  # fmt: skip
_SPACING = re.compile(f"([{''.join(_ACCENTS)}])([^\\W\\d_])")
_GRAVES = "`ˋ"
_LIGATURES = str.maketrans({c: unicodedata.normalize("NFKC", c) for c in "ﬀﬁﬂﬃﬄﬅﬆ"})
_DIGITS = re.compile(r"\d{1,3}")
_ENDS_INSIDE = re.compile(r"[^\W_]-?$|[,;]$")  # a page's text ends inside a sentence
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s|$)")

Run = tuple[int, float, str]  # (page index, size, text), as crag.ingest.pdf_fonts.Runs


def footnotes(text: str, runs: list[Run], body: float) -> tuple[str, str]:
    """(the page's text with its footnotes' marks taken off, its footnotes), from the page's
    `runs` in the order pypdf read them; (text, "") when the page has none."""
    marks: list[tuple[str, str]] = []  # (number, the word before it)
    notes: list[tuple[str, str]] = []  # (number, the footnote's first words), in order
    for i, (_, size, run) in enumerate(runs):
        if not (_DIGITS.fullmatch(run) and body and size <= MARK_RATIO * body):
            continue
        after = runs[i + 1] if i + 1 < len(runs) else None
        if after is not None and after[1] < body and not _DIGITS.fullmatch(after[2]):
            notes.append((run, after[2][:_OPENING]))
        elif i > 0 and (words := runs[i - 1][2].split()):
            marks.append((run, words[-1]))
    marked = {number for number, _ in marks}
    notes = [(n, words) for n, words in notes if n in marked]  # a footnote has its mark
    lines = text.splitlines()
    starts = _note_lines(lines, notes)
    if not starts:
        return text, ""
    kept = "\n".join(lines[: starts[0]])
    numbers = {n for n, _ in notes}
    position = 0
    for number, word in marks:
        if number not in numbers or not re.search(r"[^\W\d_]", word):
            continue  # no footnote of that number here, or no word to find the mark after
        found = re.compile(re.escape(word) + re.escape(number) + r"(?!\d)").search(kept, position)
        if found is not None:
            at = found.start() + len(word)
            kept = kept[:at] + kept[at + len(number) :]
            position = at
    block = lines[starts[0] :]
    for k, (number, _) in zip(starts, notes, strict=True):
        rest = lines[k][len(number) :].lstrip()  # LaTeX sets "1Remember": "1 Remember"
        apart = "" if k == starts[0] else "\n"  # each footnote a paragraph
        block[k - starts[0]] = f"{apart}{number} {rest}"
    return kept, "\n".join(block)


def _note_lines(lines: list[str], notes: list[tuple[str, str]]) -> list[int]:
    """The lines the footnotes open, in order, the first as late on the page as it can be
    and among its last NOTE_REACH lines (footnotes stand at the foot; a page of thousands of
    numbered lines is searched in bounded time): each opens with its number and then its
    first words, as the runs gave them ([] when some footnote opens no line after the one
    before)."""

    def opens(line: str, number: str, words: str) -> bool:
        rest = line[len(number) :].lstrip() if line.startswith(number) else None
        return rest is not None and " ".join(rest.split()).startswith(words.strip())

    if not notes:
        return []
    for start in range(len(lines) - 1, max(len(lines) - NOTE_REACH, 0) - 1, -1):
        if not opens(lines[start], *notes[0]):
            continue
        found, at = [start], start + 1
        for number, words in notes[1:]:
            at = next((j for j in range(at, len(lines)) if opens(lines[j], number, words)), -1)
            if at < 0:
                break
            found.append(at)
            at += 1
        if len(found) == len(notes):
            return found
    return []


def carry_sentences(pages: list[str], full: list[bool]) -> list[str]:
    """`pages` (the texts of consecutive pages, line wraps undone) with each sentence a page
    break cut moved whole to the page it starts on (see the module docstring); `full[i]`:
    page i's last line, as typeset, ran the full width of the page, as a paragraph's line does
    where a page break cuts it (a heading is short: "4.2 ASN.1 field functions" before a page
    that opens with the function "asn1 array2tree")."""
    out = list(pages)
    for i in range(len(out) - 1):
        before, after = out[i].rstrip(), out[i + 1].lstrip()
        first, _, rest = after.partition("\n")
        last = before.rsplit("\n", 1)[-1].lstrip()
        if not (full[i] and _ENDS_INSIDE.search(before) and first[:1].islower()):
            continue
        if last[:1] in _NOTE_SIGNS:  # the page ends with a footnote ("∗Please report …")
            continue
        end = _SENTENCE_END.search(first)
        cut = end.end() if end is not None else len(first)
        if cut > MAX_CARRY:
            continue
        carried, left = first[:cut], first[cut:].strip()
        out[i] = hyphen_join(before, carried) or f"{before} {carried}"  # (lower case goes on)
        out[i + 1] = f"{left}\n{rest}" if left and rest else left or rest
    return out


def accented(text: str) -> str:
    """`text` with each spacing accent put on the letter after it, where Unicode composes the
    two; a grave only inside a word (a backtick before a word is code's quote). And with its
    ligatures as letters ("deﬁnes" reads "defines"): keyword search folds them, but the
    embedder, the reader and an answer's quote read the ligature as a sign of its own."""
    text = text.translate(_LIGATURES)

    def put(match: re.Match[str]) -> str:
        accent, letter = match.group(1), match.group(2)
        if accent in _GRAVES and not text[max(match.start() - 1, 0)].isalpha():
            return match.group(0)
        composed = unicodedata.normalize("NFC", letter + _ACCENTS[accent])
        return composed if len(composed) == 1 else match.group(0)

    return _SPACING.sub(put, text)
