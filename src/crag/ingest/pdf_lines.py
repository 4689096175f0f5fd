"""A PDF page's lines as its paragraphs read: the typesetter's line wraps undone.

A PDF breaks every line, and the splitter cuts at line breaks before it cuts at sentence ends,
so chunks ended mid sentence. `unwrap` joins a line as long as the document's full line
(`measure`) to the next, and with it the words the typesetter split there: a word hyphenated
across the wrap, and a URL broken after a "/" or "." (`url_goes_on`).
"""

from __future__ import annotations

import re

__all__ = ["MIN_MEASURE", "WRAPPED", "hyphen_join", "measure", "unwrap", "url_goes_on"]

_NUMBER = r"(?:\d+|[A-Z])(?:\.\d+)*\.?"  # a section number: "3", "3.3.", "A.1"
# a line that opens a list item or a numbered heading: never the rest of a wrapped line
_OPENS = re.compile(rf"^\s*(?:[•·▪◦‣∙*–—-]\s|\(?(?:\d+|[a-z])[.)]\s|{_NUMBER}\s+[A-Z])")
WRAPPED = 0.8  # share of a full line's width from which a line is taken to be wrapped
MIN_MEASURE = 40  # a document of narrower lines (tables, verse, columns) is left as it is


def measure(pages: list[str]) -> int:
    """The width of a full line of the document (characters): the 90th percentile of its
    lines' lengths, so a few long code or table lines do not set it."""
    lengths = sorted(len(line.strip()) for page in pages for line in page.splitlines())
    lengths = [n for n in lengths if n]
    return lengths[int(0.9 * (len(lengths) - 1))] if lengths else 0


def unwrap(text: str, width: int) -> str:
    """`text` with the typesetter's line wraps undone: a line as long as a full line
    (≥ WRAPPED of `width`) continues on the next, unless that one opens a list item or a
    numbered heading, or the line ends with a colon (an example follows). A word hyphenated
    across the wrap is joined ("iden-" + "tifier", "OP-" + "TIONAL"); a hyphen before a
    capital and lower case is a compound's own and stays ("S-" + "Plus": "S-Plus", not
    "S- Plus"). Short lines (code, tables, headings,
    a paragraph's last line) keep their breaks; so do blank lines. Why: the splitter cuts at
    line breaks before sentence ends, and a PDF breaks every line, so chunks ended mid
    sentence ("The default weight value is" | "50, and the maximum is 100.") and a quote
    ran on through every line without a full stop."""
    if width < MIN_MEASURE:
        return text
    out: list[str] = []
    previous = ""  # the last physical line read
    for line in text.splitlines():
        full = len(previous.strip()) >= WRAPPED * width and not previous.rstrip().endswith(":")
        if out and full and line.strip() and not _OPENS.match(line):
            joined = out[-1].rstrip()
            hyphened = hyphen_join(joined, line.strip())
            if hyphened is not None:
                out[-1] = hyphened
            else:
                gap = "" if url_goes_on(joined, line.strip()) else " "
                out[-1] = f"{joined}{gap}{line.strip()}"
        else:
            out.append(line)
        previous = line
    return "\n".join(out)


_URL_END = re.compile(r"https?://[^\s{}<>\\\"]*$")  # (not into code: "…/#1}{\\nolinkurl")


def url_goes_on(before: str, after: str) -> bool:
    """The line `before` ends inside a URL that `after` goes on with: a typesetter breaks a
    long URL after a "/", "." or "-" with no hyphen added ("https://docs.fedoraproject." +
    "org/en-US/epel/)", "https://CRAN.R-project.org/" + "package=lattice)."), and a space
    there made two words of it. After a dot the rest starts with a small letter or a digit
    (a capital opens a sentence: "…/shared-mime-info." + "All"); after a slash it holds a
    path's sign or closes a bracket ("…/wiki/" + "Reproducibility)"; not "…org/" + "and");
    a capital after a dot goes on a host name if a path or a domain follows ("https://CRAN." +
    "R-project.org/package=mda)")."""
    url = _URL_END.search(before)
    words = after.split()
    if url is None or not words:
        return False
    end, rest = url.group(0), words[0]
    if end.endswith("://") or end[-1] in "-_=?&#":
        return True
    if end[-1] == ".":
        path = re.search(r"[/=]|\.\w{2,}", rest) is not None  # "R-project.org/package=mda)"
        digits = rest[0].isdigit() and not rest.isdigit()  # a DOI's; not a listing's line number
        return end[-2] not in "/)" and (rest[0].islower() or digits or path)
    if end[-1] == "/":
        return re.search(r"[./=_#?&~%]", rest) is not None or rest.endswith(")")
    return False


def hyphen_join(before: str, after: str) -> str | None:
    """`before` and `after` as one line where `before` ends with a hyphen after a letter:
    the hyphen dropped where a word was hyphenated ("iden-" + "tifier"), kept where it is a
    compound's own ("S-" + "Plus": "S-Plus"); None where `before` ends with no such hyphen
    or `after` goes on with neither."""
    if not (before.endswith("-") and before[-2:-1].isalpha()):
        return None
    if _hyphenated(before[:-1], after):
        return before[:-1] + after
    return before + after if after[:1].isupper() else None


def _hyphenated(before: str, after: str) -> bool:
    """A word was hyphenated where `before` ends and `after` begins: lower case goes on
    ("iden" + "tifier"), or capitals go on capitals ("OP" + "TIONAL", an ASN.1 keyword); a
    capital then lower case is a compound's second part ("Addison" + "Wesley")."""
    tail = before.split()[-1] if before.split() else ""
    return after[:1].islower() or (
        len(tail) >= 2 and tail.isupper() and after[:2].isupper() and after[:2].isalpha()
    )
