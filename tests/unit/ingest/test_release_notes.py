"""Release notes' sections: Debian changelog entries and declared GNU NEWS outlines."""

from __future__ import annotations

from pathlib import Path

from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_bytes
from crag.ingest.release_notes import release_headings

CHANGELOG = """tzdata (2025b-0+deb12u1) bookworm-security; urgency=medium

  * New upstream version 2025b:
    - New America/Coyhaique zone for Aysen Region in Chile.

 -- Aurelien Jarno <aurel32@debian.org>  Wed, 26 Mar 2025 21:52:28 +0100

tzdata (2024a-0+deb12u1) UNRELEASED experimental; urgency=low

  * Kazakhstan unifies on UTC+5 beginning 2024-03-01.

 -- Aurelien Jarno <aurel32@debian.org>  Sat, 10 Feb 2024 10:00:00 +0100
"""

NEWS = """GNU sed NEWS                                    -*- outline -*-

* Noteworthy changes in release 4.9 (2022-11-06) [stable]

** Bug fixes

  'sed --follow-symlinks -i' no longer loops forever.

* Noteworthy changes in release 4.8 (2020-01-14) [stable]

** Bug fixes

  "sed -i" now creates temporary files with correct umask.
"""


def test_debian_changelog_entries() -> None:
    found = release_headings(CHANGELOG)
    assert [(h.level, h.text) for h in found] == [
        (1, "tzdata (2025b-0+deb12u1) bookworm-security"),
        (1, "tzdata (2024a-0+deb12u1) UNRELEASED experimental"),
    ]
    assert CHANGELOG[found[1].offset :].startswith("tzdata (2024a")


def test_declared_outline() -> None:
    found = release_headings(NEWS)
    assert [(h.level, h.text) for h in found] == [
        (1, "Noteworthy changes in release 4.9 (2022-11-06) [stable]"),
        (2, "Bug fixes"),
        (1, "Noteworthy changes in release 4.8 (2020-01-14) [stable]"),
        (2, "Bug fixes"),
    ]


def test_stars_are_bullets_elsewhere() -> None:
    # no mode line: GNU tar's NEWS, a README's list
    tar = "GNU tar NEWS\n\nversion 1.34 - 2021-02-13\n\n* Fix extraction over pipe\n"
    assert release_headings(tar) == []
    assert release_headings("Notes\n\n* first point\n* second point\n") == []
    # a line that only looks like an entry, inside a paragraph
    assert release_headings("See foo (1.0) for why; urgency is relative.\n") == []


def test_a_change_stores_the_release_it_came_in() -> None:
    result = load_bytes(Path("/usr/share/doc/sed/NEWS"), NEWS.encode())
    (doc,) = result.documents
    chunks = Chunker(chunk_size=120, chunk_overlap=0).split(doc)
    umask = next(c for c in chunks if "umask" in c.text)
    # the chunk opens at its "** Bug fixes", which its text names: the release is stored above
    assert umask.metadata["heading"] == "Noteworthy changes in release 4.8 (2020-01-14) [stable]"
    assert "4.8" not in umask.text and "4.9" not in umask.text
