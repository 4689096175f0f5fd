"""A real headless Chromium for the web page's tests, driven by Playwright.

Debian's `chromium` is used (`scripts/setup` installs it when it can); Playwright's own browser
download is never used. Where no Chromium is found the tests are skipped with a loud message —
except when `CI` or `CRAG_REQUIRE_BROWSER` is set, where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ARGS", "chromium", "find_chromium", "screenshot_dir"]

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


def find_chromium() -> str | None:
    given = os.environ.get("CRAG_CHROMIUM")
    if given:
        return given
    for path in CANDIDATES:
        if Path(path).exists():
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _unavailable(why: str) -> None:
    message = (
        f"\n\n*** WEB PAGE BROWSER TESTS NOT RUN: {why}. Install Debian's chromium "
        "(scripts/setup does so as root: apt-get install -y chromium chromium-driver) and "
        "playwright (pip install -e '.[dev]'). ***\n"
    )
    if os.environ.get("CI") or os.environ.get("CRAG_REQUIRE_BROWSER"):
        pytest.fail(message)
    sys.stderr.write(message)
    pytest.skip(message.strip())


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a Playwright `Browser`)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    path = find_chromium()
    if path is None:
        _unavailable("no Chromium found (looked for /usr/bin/chromium, CRAG_CHROMIUM)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def screenshot_dir(fallback: Path) -> Path:
    """Where screenshots go: `CRAG_SCREENSHOTS` when set, else `fallback`."""
    folder = Path(os.environ.get("CRAG_SCREENSHOTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
