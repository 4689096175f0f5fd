"""Refinement without a model: how chunks decompose into strips (sections, headings, option
lists, a colon's lead-in), which strips are kept, and in what order they are read."""

from __future__ import annotations

import dataclasses

import pytest
from tests.support.chunks import chunk

from crag.generate import number_sources
from crag.refine import Refiner, decompose


def test_decompose_modes() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(7))
    c = chunk(text)
    assert [s.text for s in decompose([c], "selection")] == [text]
    ex = decompose([c], "excerption")
    assert len(ex) == 3 and ex[0].text.count(".") == 3
    words = " ".join(f"w{i}" for i in range(120))
    fixed = decompose([chunk(words)], "fixed_num", window_words=50)
    assert [len(s.text.split()) for s in fixed] == [50, 50, 20]
    assert [s.order for s in ex] == [0, 1, 2]
    with pytest.raises(ValueError, match=r"refine\.mode"):
        decompose([c], "bogus")  # type: ignore[arg-type]


def test_excerption_keeps_each_section_apart_and_led_by_its_heading() -> None:
    text = (
        "### Event: `'close'`\n\nEmitted when the server closes.\n\n"
        "### Event: `'connection'`\n\n* {net.Socket} The connection object\n\n"
        "Emitted when a new connection is made.\n\n## Honey\n\nBees make honey from nectar.\n\n"
        "## Empty\n"
    )
    got = [s.text for s in decompose([chunk(text)], "excerption")]
    assert got == [
        "Event: 'close'. Emitted when the server closes.",
        # the list item ends a block: its line break stays (a quote does not run on)
        "Event: 'connection'. * {net.Socket} The connection object\n\nEmitted when a new "
        "connection is made.",
        "Bees make honey from nectar.",  # a heading its strip already names is not repeated
    ]


def test_a_sphinx_code_directive_line_ends_a_strip_and_is_not_quoted() -> None:
    text = (
        "New in version 3.19: An interface library target may be created with source files:"
        "\n\n.. code-block:: cmake\n\n  add_library(Eigen INTERFACE src.h)\n"
    )
    got = [s.text for s in decompose([chunk(text)], "excerption")]
    assert not any(".. code-block" in s for s in got)
    assert got[0].startswith("New in version 3.19: An interface library target")


def test_a_compound_name_heading_is_named_only_by_itself() -> None:
    # npm's config entries: the option's name is the heading; "audit" and "level" standing
    # apart in the text do not say it
    text = (
        "#### `audit-level`\n\n* Default: null\n\nThe minimum level of vulnerability for "
        "`npm audit` to exit with a non-zero exit code.\n\n#### `dry-run`\n\nSee `dry-run` "
        "below.\n"
    )
    got = [s.text for s in decompose([chunk(text)], "excerption")]
    assert got[0].startswith("audit-level. * Default: null")
    assert got[-1] == "See `dry-run` below."  # said as itself: not repeated


_ISQRT = (
    "## math.isqrt(n)\n\nReturn the integer square root of the nonnegative integer n. This is "
    "the floor of the exact square root of n. For some applications the ceiling may be more "
    "convenient.\n\nFor positive n, this can be computed using a = 1 + isqrt(n - 1).\n\n"
    "New in version 3.8.\n\n## math.lcm(*integers)\n\nReturn the least common multiple.\n"
)


def test_a_chunk_that_starts_inside_a_code_block_still_has_its_headings() -> None:
    text = "    return b\n```\n\n### itertools.pairwise(iterable)\n\nReturn successive pairs.\n"
    code = dataclasses.replace(chunk(text), metadata={"code_fence": "```"})
    got = [s.text for s in decompose([code], "excerption")]
    assert got[-1] == "itertools.pairwise(iterable). Return successive pairs."
    assert all("itertools.pairwise" not in s.text for s in decompose([chunk(text)], "excerption"))


def test_a_later_strip_of_a_section_is_led_by_its_heading() -> None:
    got = decompose([chunk(_ISQRT)], "excerption")
    assert [(s.text[:20], s.lead) for s in got] == [
        ("math.isqrt(n). Retur", ""),  # the first opens with it
        ("For positive n, this", "math.isqrt(n)."),
        ("math.lcm(*integers).", ""),
    ]


def test_a_strip_is_read_after_its_lead_unless_it_follows_the_strip_before_it() -> None:
    first, later, other = decompose([chunk(_ISQRT)], "excerption")
    alone = number_sources([later])[0].text
    assert alone.startswith("math.isqrt(n). For positive n") and alone.endswith("3.8.")
    together = number_sources([first, later])[0].text
    assert together.count("math.isqrt(n).") == 1  # read on from the section's first strip
    assert number_sources([other])[0].text.startswith("math.lcm(*integers). Return")


def test_a_later_strip_is_scored_after_its_lead() -> None:
    class Recording:
        def __init__(self) -> None:
            self.texts: list[str] = []

        def score(self, question: str, texts: list[str]) -> list[float]:
            self.texts.extend(texts)
            return [0.5] * len(texts)

    evaluator = Recording()
    Refiner(evaluator).refine("When was math.isqrt added?", [chunk(_ISQRT)])  # type: ignore[arg-type]
    assert "math.isqrt(n). For positive n, this can be computed" in evaluator.texts[1]


MAN_PAGE = (
    "given, the file is overwritten.\n\n       -h --help\n\t      Display a help screen and "
    "quit.\n\n       -k --keep\n\t      Keep (don't delete) input files during compression."
    "\n\n       -l --list\n\t      For each compressed file, list the following fields:"
    "\n\n\t      compressed size: size of the compressed file"
)


def test_each_entry_of_an_option_list_opens_its_own_strip() -> None:
    got = [s.text for s in decompose([chunk(MAN_PAGE)], "excerption")]
    assert got == [
        "given, the file is overwritten.",
        "-h --help Display a help screen and quit.",
        "-k --keep Keep (don't delete) input files during compression.",
        # the entry's further paragraphs stay with it
        "-l --list For each compressed file, list the following fields: compressed size: size "
        "of the compressed file",
    ]
    # prose is grouped as before: a negative number or a dash inside a sentence opens nothing
    prose = "It froze at -40 degrees.\n\n-40 is cold, they said. Then it thawed."
    assert [s.text for s in decompose([chunk(prose)], "excerption")] == [
        "It froze at -40 degrees.\n\n-40 is cold, they said. Then it thawed."  # a paragraph end
    ]


def test_an_option_list_without_blank_lines_opens_a_strip_per_entry() -> None:
    """R's manual as a PDF gives its option list: an entry's line opens with the option, no
    blank line between entries. Grouped as sentences, "--no-restore" stood at the end of a
    strip on three other options and "--no-save" was given for it."""
    page = (
        "Do not read the user's profile at startup.\n--restore\n--no-restore\n"
        "Control whether saved images should be restored at startup or not. The default is "
        "to restore.\n--vanilla\nCombine --no-save and --no-restore. Use -v or\n-q here.\n"
        "--alt-svc can be used several times.\n--file name\nRead the name."
    )
    assert [s.text for s in decompose([chunk(page)], "excerption")] == [
        "Do not read the user's profile at startup.",
        "--restore --no-restore Control whether saved images should be restored at startup or "
        "not. The default is to restore.",
        # no stop before -q; a sentence that opens with an option is the entry's (curl's)
        "--vanilla Combine --no-save and --no-restore. Use -v or -q here. --alt-svc can be "
        "used several times.",
        "--file name Read the name.",
    ]


def test_an_option_list_written_in_markdown_opens_a_strip_per_entry() -> None:
    """Valgrind's manual through trafilatura: each option a list item in code, its description
    the next item. Grouped with the sentence before it, --error-limit's "yes" stood beside
    --num-callers and was given as its default."""
    page = (
        "Stacks can be long. No stack trace larger than the value of `--num-callers` is made."
        "\n\n- `--error-limit=<yes|no> [default: yes]`\n- When enabled, Valgrind stops "
        "reporting errors.\n\n* **-k** Keep the input files."
    )
    assert [s.text for s in decompose([chunk(page)], "excerption")] == [
        "Stacks can be long. No stack trace larger than the value of `--num-callers` is made.",
        "- `--error-limit=<yes|no> [default: yes]` - When enabled, Valgrind stops reporting "
        "errors.",
        "* **-k** Keep the input files.",
    ]


def test_a_sentence_ending_with_a_colon_keeps_what_it_introduces() -> None:
    """httpx's README: the command for HTTP/2 stands alone in a code block after its lead-in;
    cut after three sentences, the strip that names HTTP/2 lost the command."""
    readme = (
        "## Installation\n\nInstall with pip:\n\n```shell\n$ pip install httpx\n```\n\n"
        "Or, to include the optional HTTP/2 support, use:\n\n```shell\n"
        "$ pip install httpx[http2]\n```\n\nHTTPX requires Python 3.8+.\n"
    )
    assert [s.text for s in decompose([chunk(readme)], "excerption")] == [
        # a code line ends a block (its break stays), a lead-in's colon does not
        "Installation. Install with pip: $ pip install httpx\n\nOr, to include the optional HTTP/2 "
        "support, use: $ pip install httpx[http2]",
        "HTTPX requires Python 3.8+.",
    ]
    # the length cap still holds
    long = "Use this:\n\n" + "x " * 400
    assert len(decompose([chunk(long)], "excerption", excerpt_sentences=1)) == 2


class KeywordScorer:
    """A deterministic evaluator for refinement order tests (the LLM judge is tested live)."""

    name = "keyword"

    def score(self, question: str, passages: list[str]) -> list[float]:
        return [0.9 if "answer" in p else 0.1 for p in passages]


def test_refiner_keeps_top_k_above_floor_in_reading_order() -> None:
    c1 = chunk("Noise one. The answer is here. More noise.", 1)
    c2 = chunk("Another answer sits here. Noise again.", 2)
    refiner = Refiner(KeywordScorer(), mode="excerption", top_k=5, floor=0.5)
    refiner_one = Refiner(KeywordScorer(), mode="fixed_num", window_words=3, top_k=2, floor=0.5)
    kept, _ = refiner.refine("q", [c1, c2])
    assert [s.chunk.id for s in kept] == ["c1", "c2"]  # reading order, both above floor
    kept, _ = refiner_one.refine("q", [c1, c2])
    assert len(kept) == 2 and all("answer" in s.text for s in kept)
    assert [s.order for s in kept] == sorted(s.order for s in kept)
    # selection mode reuses the chunk scores it is given instead of re-scoring
    sel = Refiner(KeywordScorer(), mode="selection", top_k=1, floor=0.0)
    kept, _ = sel.refine("q", [c1, c2], known={"c1": 0.2, "c2": 0.8})
    assert [s.chunk.id for s in kept] == ["c2"]


def test_the_best_strip_of_the_leading_chunks_survives_a_noise_level_score() -> None:
    # "Buzz Aldrin … the second person" scored 0.228 against a floor of 0.23 and was dropped,
    # while a sentence about his air force career was kept: the answer was lost.
    class Noisy:
        name = "noisy"

        def score(self, question: str, passages: list[str]) -> list[float]:
            return [0.228 if "second" in p else 0.231 if "officer" in p else 0.1 for p in passages]

    c1 = chunk("Buzz Aldrin was the second person to walk on the Moon.", 1)
    c2 = chunk("He is a former U.S. Air Force officer. He wrote books.", 2)
    refiner = Refiner(Noisy(), mode="excerption", top_k=2, floor=0.23, excerpt_sentences=1)
    kept, _ = refiner.refine("who was the second person to walk on the moon?", [c1, c2],
                             known={"c1": 0.5, "c2": 0.3})  # fmt: skip
    assert any("second person" in s.text for s in kept)
    off = Refiner(Noisy(), mode="excerption", top_k=2, floor=0.23, excerpt_sentences=1,
                  keep_best_of=0)  # fmt: skip
    kept, _ = off.refine("q", [c1, c2], known={"c1": 0.5, "c2": 0.3})
    assert not any("second person" in s.text for s in kept)  # the old behaviour
