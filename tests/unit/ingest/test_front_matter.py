"""The front matter of documentation sites' Markdown pages (`crag.ingest.front_matter`)."""

from __future__ import annotations

import pytest

from crag.ingest.front_matter import MAX_CHARS, MAX_LINES, split_front_matter


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # npm's docs
            "---\ntitle: npm-ci\nsection: 1\ndescription: Clean install a project\n---\n\nBody\n",
            ("npm-ci", "Clean install a project", "\nBody\n"),
        ),
        (  # YAML's folded and quoted values read as one line; "..." closes the block too
            '---\ntitle: "Getting: started"\ndescription: >\n  Two\n  lines.\n...\nBody',
            ("Getting: started", "Two lines.", "Body"),
        ),
        (  # Hugo's TOML, with its "summary"
            '+++\ntitle = "Hugo page"\nsummary = "What it is for"\nweight = 3\n+++\nBody',
            ("Hugo page", "What it is for", "Body"),
        ),
    ],
)
def test_front_matter_gives_title_description_and_body(
    text: str, expected: tuple[str, str, str]
) -> None:
    matter, warnings = split_front_matter(text)
    assert matter is not None and not warnings
    assert (matter.title, matter.description, matter.body) == expected


def test_no_block_unclosed_block_and_thematic_break_are_not_front_matter() -> None:
    assert split_front_matter("# Title\n\n---\n\ntext\n") == (None, [])
    assert split_front_matter("---\ntitle: x\n" + "line\n" * (MAX_LINES + 5)) == (None, [])
    assert split_front_matter("---") == (None, [])


def test_non_mapping_or_broken_block_is_left_with_a_warning() -> None:
    for block in ("- a list\n- of items", "title: [unclosed", "key: value\n  bad: indent: x"):
        matter, warnings = split_front_matter(f"---\n{block}\n---\nBody")
        assert matter is None
        assert warnings == ["front matter is not a YAML mapping: read as text"]
    matter, warnings = split_front_matter("+++\ntitle = \n+++\nBody")
    assert matter is None and warnings == ["front matter is not a TOML mapping: read as text"]


def test_only_scalar_values_are_taken() -> None:
    text = "---\ntitle: [a, b]\ndescription: {x: 1}\nsummary: 42\n---\n"
    matter, _ = split_front_matter(text)
    assert matter is not None
    assert (matter.title, matter.description, matter.body) == ("", "42", "")
    # an alias bomb is parsed by reference and never walked
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\ntitle: *d"
    matter, _ = split_front_matter(f"---\n{bomb}\n---\nBody")
    assert matter is not None and matter.title == ""


def test_empty_block() -> None:
    matter, _ = split_front_matter("---\n---\nBody")
    assert matter is not None and (matter.title, matter.body) == ("", "Body")


def test_hostile_blocks_are_read_as_text_in_bounded_time() -> None:
    deep = "[" * 20_000 + "]" * 20_000  # past the parsers' recursion depth
    for text, kind in (
        (f"---\ntitle: {deep}\n---\nBody", "YAML"),
        (f"+++\na = {deep}\n+++\nB", "TOML"),
    ):
        matter, warnings = split_front_matter(text)
        assert matter is None
        assert warnings == [f"front matter is not a {kind} mapping: read as text"]
    code = "---\ntitle: !!python/object/apply:os.system ['echo hi']\n---\nBody"
    assert split_front_matter(code)[0] is None
    matter, warnings = split_front_matter("---\ntitle: " + "x" * MAX_CHARS + "\n---\nBody")
    assert matter is None and "longer than" in warnings[0]
