"""A PDF page's text as it reads: footnotes apart, sentences whole across pages, accents on
their letters (crag.ingest.pdf_flow), on real PDFs written for the test and on the parts."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.pdfs import pdf_pages

from crag.ingest.loaders import load_file
from crag.ingest.pdf_flow import MAX_CARRY, NOTE_REACH, accented, footnotes
from crag.ingest.pdf_flow import carry_sentences as carried

# lines as wide as a typeset page's, so that line wraps are undone (crag.ingest.pdf_lines.unwrap)
LINES = [
    "Elementary commands consist of either expressions or assignments, and an expression",
    "given as a command is evaluated, printed and its value lost, while an assignment also",
    "evaluates an expression and passes the value to a variable without printing the result.",
]
LIMITED = [
    ("Command lines entered at the console are limited", 11.0),
    ("3", 7.0),
    (" to about 4095 bytes, not characters, on every platform that R supports today.", 11.0),
]
FOOTNOTE = [("3", 7.0), (" some of the consoles will not allow you to enter more than that.", 9.0)]


def _pages(tmp_path: Path, pages: list[list[object]]) -> list[str]:
    path = tmp_path / "manual.pdf"
    path.write_bytes(pdf_pages(pages))  # type: ignore[arg-type]
    return [d.text for d in load_file(path).documents]


def test_a_footnote_is_set_apart_and_its_mark_taken_off_its_word(tmp_path: Path) -> None:
    [text] = _pages(tmp_path, [[*LINES, LIMITED, FOOTNOTE]])
    body, _, notes = text.partition("\n\n")
    assert "are limited to about 4095 bytes" in body and "limited3" not in body
    # the body's last line was full: without the footnote set apart it ran on into it
    assert body.endswith("that R supports today.")
    assert notes == "3 some of the consoles will not allow you to enter more than that."


def test_each_footnote_is_a_paragraph_of_its_own(tmp_path: Path) -> None:
    marked = [
        ("Names are effectively unlimited in length and may hold dots", 11.0),
        ("4", 7.0),
        (" or underscores, with the restriction that a name must start with a letter.", 11.0),
    ]
    second = [("4", 7.0), (" not inside strings, nor within the argument list of a function.", 9.0)]
    [text] = _pages(tmp_path, [[*LINES, LIMITED, marked, FOOTNOTE, second]])
    assert "with dots or" not in text and "may hold dots or underscores" in text
    assert text.endswith(
        "\n\n3 some of the consoles will not allow you to enter more than that."
        "\n\n4 not inside strings, nor within the argument list of a function."
    )


def test_a_small_number_without_a_footnote_is_left_alone(tmp_path: Path) -> None:
    squared = [("The area grows with r", 11.0), ("2", 7.0), (" as the circle widens.", 11.0)]
    [text] = _pages(tmp_path, [[*LINES, squared, "A last line of the page, short."]])
    assert "grows with r2 as the circle widens." in text and "\n\n" not in text


def test_footnotes_from_runs_alone() -> None:
    runs = [(0, 11.0, "text is limited"), (0, 7.0, "3"), (0, 11.0, "to 4095 bytes."),
            (0, 7.0, "3"), (0, 9.0, "some consoles allow less.")]  # fmt: skip
    text = "text is limited3 to 4095 bytes.\n3 some consoles allow less."
    assert footnotes(text, runs, 11.0) == (
        "text is limited to 4095 bytes.",
        "3 some consoles allow less.",
    )
    assert footnotes(text, runs, 0.0) == (text, "")  # no sizes known: nothing is told apart
    # the footnote's number must open a line: a number in the text is not a footnote
    assert footnotes("text is limited3 to 4095 bytes. 3 some.", runs, 11.0)[1] == ""


def test_a_listings_small_line_numbers_are_no_footnotes_and_latex_labels_are_read() -> None:
    # a docstrip listing: each line's number set small before smaller code; no mark anywhere
    listing = [(0, 10.0, "The code follows."), (0, 6.0, "116"), (0, 8.0, "\\else"),
               (0, 6.0, "117"), (0, 8.0, "\\fi")]  # fmt: skip
    text = "The code follows.\n116 \\else\n117 \\fi"
    assert footnotes(text, listing, 10.0) == (text, "")
    # LaTeX glues a footnote's number to its text; a heading that opens with the number is
    # not the footnote ("3 Installation" above "… on CTAN3:")
    runs = [(0, 10.0, "3 Installation"), (0, 10.0, "available on CTAN"), (0, 6.0, "3"),
            (0, 10.0, ": the archive."), (0, 6.0, "3"), (0, 8.0, "CTAN:pkg/hypbmsec")]  # fmt: skip
    text = "3 Installation\nIt is available on CTAN3: the archive.\n3CTAN:pkg/hypbmsec"
    assert footnotes(text, runs, 10.0) == (
        "3 Installation\nIt is available on CTAN: the archive.",
        "3 CTAN:pkg/hypbmsec",
    )


def test_a_page_of_numbered_lines_is_searched_for_footnotes_in_bounded_time() -> None:
    # a hostile page: 20,000 lines that open like footnote 1, footnote 2 nowhere
    text = "word1 here\n" + "\n".join(["1 x"] * 20_000)
    runs = [(0, 10.0, "word"), (0, 6.0, "1"), (0, 10.0, "here"), (0, 6.0, "1"),
            (0, 8.0, "x"), (0, 10.0, "more"), (0, 6.0, "2"), (0, 10.0, "z"), (0, 6.0, "2"),
            (0, 8.0, "y")]  # fmt: skip
    started = time.monotonic()
    assert footnotes(text, runs, 10.0) == (text, "")
    assert time.monotonic() - started < 2.0
    # the first footnote starts within the page's last NOTE_REACH lines, or is none
    page = "word1 here\n1 x\n" + "\n".join(["text"] * NOTE_REACH)
    assert footnotes(page, runs[:5], 10.0) == (page, "")


def test_a_sentence_cut_by_a_page_break_is_carried_whole(tmp_path: Path) -> None:
    first = [
        *LINES,
        "The arguments are by default separated in the result by a single blank character,",
    ]
    second = ["but this can be changed by the named argument sep. For example, paste(x, y)",
              "joins without a blank."]  # fmt: skip
    one, two = _pages(tmp_path, [first, second])
    assert one.endswith(
        "a single blank character, but this can be changed by the named argument sep."
    )
    assert two.startswith("For example, paste(x, y)")


def test_carry_sentences_only_where_a_sentence_goes_on() -> None:
    def carry_sentences(pages: list[str], full: list[bool] | None = None) -> list[str]:
        return carried(pages, full or [True] * len(pages))

    assert carry_sentences(["It ends here.", "and more."]) == ["It ends here.", "and more."]
    assert carry_sentences(["It goes on,", "Then a new one."]) == ["It goes on,", "Then a new one."]
    assert carry_sentences(["The pack-", "ages load. Next."]) == ["The packages load.", "Next."]
    assert carry_sentences(["It goes on", "to the end\nNext line."]) == [
        "It goes on to the end",
        "Next line.",
    ]
    long = "and " + "so on " * MAX_CARRY
    assert carry_sentences(["It goes on", long]) == ["It goes on", long]
    assert carry_sentences(["A", "b.", "c."]) == ["A b.", "", "c."]
    # a footnote marked with a sign ends the page: the next page's text is not its rest
    signed = ["Text.\n∗Please report any issues at https://example.org/issues", "flags Set."]
    assert carry_sentences(signed) == signed
    # a short last line is a heading, not a paragraph a page break cut
    assert carry_sentences(["4.2 Field functions", "asn1 delete"], [False, True]) == [
        "4.2 Field functions",
        "asn1 delete",
    ]


def test_spacing_accents_are_put_on_their_letters() -> None:
    assert accented("Wirtschaftsuniversit¨at Wien") == "Wirtschaftsuniversität Wien"
    assert accented("Fran¸cois and Mol`ere, Universit´e") == "François and Molère, Université"
    assert accented("run `ls` or ¨q") == "run `ls` or ¨q"  # a code quote; no such letter
    assert accented("The package deﬁnes diﬀerent ﬂags") == "The package defines different flags"
