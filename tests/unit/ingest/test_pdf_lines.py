"""A PDF page's lines as its paragraphs read: line wraps undone, with the words the
typesetter split across them (crag.ingest.pdf_lines)."""

from __future__ import annotations

from crag.ingest.pdf_lines import measure, unwrap, url_goes_on

WRAPPED_PAGE = """\
2.2. The source XML files
Each mime-type node may contain any combination of the following elements, in order:
• glob elements have a pattern attribute. Any file whose name matches this pattern will
be given this MIME type. There is also an optional weight attribute which is used when
resolving conflicts with other glob matches. The default weight value is
50, and the maximum is 100. Every name that a rule of this kind gives is an iden-
tifier of the type.
For example:
<glob pattern="*.diff"/>
<glob pattern="*.patch"/>

A new paragraph starts after a blank line and ends short.
2.3. The MEDIA/SUBTYPE.xml files"""


def test_wrapped_lines_are_joined_and_short_ones_kept() -> None:
    width = measure([WRAPPED_PAGE])
    assert 80 <= width <= 90
    text = unwrap(WRAPPED_PAGE, width)
    assert text.splitlines() == [
        "2.2. The source XML files",
        "Each mime-type node may contain any combination of the following elements, in order:",
        "• glob elements have a pattern attribute. Any file whose name matches this pattern will"
        " be given this MIME type. There is also an optional weight attribute which is used when"
        " resolving conflicts with other glob matches. The default weight value is 50, and the"
        " maximum is 100. Every name that a rule of this kind gives is an identifier of the type.",
        "For example:",
        '<glob pattern="*.diff"/>',
        '<glob pattern="*.patch"/>',
        "",
        "A new paragraph starts after a blank line and ends short.",
        "2.3. The MEDIA/SUBTYPE.xml files",
    ]


def test_a_list_item_or_numbered_heading_after_a_full_line_opens_its_own_line() -> None:
    page = (
        "The magic data is stored in a binary format for ease of parsing by every reader.\n"
        "• The old magic database had complex escaping rules, handled by the new tool now.\n"
        "3.1 Invoking the parser with the check option and an output file name given\n"
        "(a) the first of the options that the parser reads from its command line today"
    )
    assert unwrap(page, measure([page])) == page


def test_a_compounds_hyphen_before_a_capital_stays() -> None:
    page = (
        "This introduction derives from notes describing the S and S-\n"
        "Plus environments, written in 1990 by two statisticians at one university.\n"
        "The notes were then made into a manual and the hyphenated word iden-\n"
        "tifier was joined, as was the keyword written in capitals, the ASN.1 OP-\n"
        "TIONAL, unlike the publisher of the book that they cite, Addison-\n"
        "Wesley."
    )
    text = unwrap(page, measure([page]))
    assert "the S and S-Plus environments, written" in text and "word identifier was" in text
    assert "ASN.1 OPTIONAL, unlike" in text and "cite, Addison-Wesley." in text


def test_a_url_broken_across_lines_is_one_word_again() -> None:
    page = (
        "The Extra Packages for Enterprise Linux project (https://docs.fedoraproject.\n"
        "org/en-US/epel/) provides ports of the Fedora RPMs for RedHat Enterprise Linux,\n"
        "see the package at https://CRAN.R-project.org/ or the mirrors listed at https://\n"
        "CRAN.R-project.org/mirrors.html for details."
    )
    text = unwrap(page, measure([page]))
    assert "(https://docs.fedoraproject.org/en-US/epel/) provides" in text
    assert "https://CRAN.R-project.org/ or the" in text
    assert "https://CRAN.R-project.org/mirrors.html for" in text
    for before, after, goes_on in [
        ("at https://CRAN.R-project.org/", "package=lattice).", True),
        ("at https://en.wikipedia.org/wiki/", "Reproducibility)", True),
        ("at https://CRAN.", "R-project.org/package=mda)", True),
        ("at https://doi.org/10.1080/10618600.1996.", "10474713)).", True),
        ("at https://bioconductor.org/BiocViews.html#", "___Software)", True),
        ("at https://www.freedesktop.org/standards/shared-mime-info.", "All of it", False),
        ("at https://www.R-project.org/.", "it is", False),
        ("at https://CRAN.R-project.org/", "and is mirrored", False),
        ("the S-", "Plus manual", False),
        # a listing's next line and its number: TeX code, not a URL
        (r"\href{https://ctan.org/tex-archive/#1}{\nolinkurl{CTAN:#1}}%", r"144 \def", False),
        ("https://www.unicode.org/Public/MAPPINGS/ISO8859/8859-16.TXT.", "1524 }", False),
    ]:
        assert url_goes_on(before, after) is goes_on, (before, after)


def test_narrow_lines_are_left_alone() -> None:
    table = "Name Size\nglobs 12\nmagic 40\nicons 3"
    assert unwrap(table, measure([table])) == table
