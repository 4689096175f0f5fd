"""Plain text's wraps undone only where a sentence runs on (crag.ingest.text_wraps)."""

from __future__ import annotations

from crag.ingest.text_wraps import join_wrapped_lines

MAN = """\
GZIP(1)                  General Commands Manual                  GZIP(1)

DESCRIPTION
       The  gzip  command reduces the size of the named files using Lempel-Ziv
       coding (LZ77).  Whenever possible, each file is replaced by one with
       the extension .gz, while keeping the same ownership modes, access and
       modification times.  If no files are specified, the standard input is
       compressed to the standard output.  The command compresses files;  in par\u2010
       ticular, it will ignore symbolic links.

       -k --keep
              Keep (don't delete) input files during compression or
              decompression.
"""


def test_a_wrapped_paragraph_runs_on_and_its_hyphenated_word_is_whole() -> None:
    out = join_wrapped_lines(MAN)
    assert "the standard input is compressed to the standard output." in out
    assert "in particular, it will ignore symbolic links." in out
    assert "using Lempel-Ziv coding (LZ77)." in out
    assert "\n\n       -k --keep\n" in out  # a short line (an option's name) keeps its break
    assert "during compression or decompression." in out
    assert out.startswith("GZIP(1)  ")  # the header line is its own


def test_a_line_a_capital_digit_or_sign_opens_keeps_its_break() -> None:
    log = "\n".join(
        f"2026-11-26 12:00:{i:02d} INFO worker {i} finished its batch of records" for i in range(8)
    )
    assert join_wrapped_lines(log) == log
    upper = "\n".join(f"ERROR worker {i} could not reach the database server" for i in range(8))
    assert join_wrapped_lines(upper) == upper


def test_another_indentation_keeps_its_break() -> None:
    text = (
        "This paragraph is long enough to reach the right margin of this file\n"
        "    continued text that is indented as a quoted block would be here\n"
        "and a last line that is also long enough to reach the file's margin\n"
    )
    assert join_wrapped_lines(text) == text


def test_short_or_unwrapped_files_are_unchanged() -> None:
    assert join_wrapped_lines("a\nb\nc") == "a\nb\nc"
    one = "Each line is its own record.\nshort\nanother line\n"
    assert join_wrapped_lines(one) == one


def test_windows_line_ends_and_a_plain_hyphen() -> None:
    text = (
        "The harbour master keeps the mooring fees low for the small and well-\r\n"
        "known fishing boats that have used the north pier for many generations\r\n"
        "of fishermen.\r\n"
    )
    out = join_wrapped_lines(text)
    assert out == (
        "The harbour master keeps the mooring fees low for the small and well-known fishing "
        "boats that have used the north pier for many generations of fishermen.\r\n"
    )
