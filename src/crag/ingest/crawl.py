"""Fetching web pages to ingest: given URLs, optionally following links a few levels deep.

Every request goes through `crag.web.PageFetcher` (the SSRF guard on every hop, one deadline,
the size cap, HTML and text only). Politeness, because this reads someone else's site:

- one request at a time, with `delay` seconds between requests to the same host (or the
  site's robots.txt `Crawl-delay`, up to `MAX_DELAY`);
- robots.txt is read once per host and obeyed for crag's user agent (a robots.txt that
  cannot be fetched — 404, or an error — allows everything, as crawlers conventionally do);
- a crawl stays on the start page's site (`same_site`: same scheme, host and port) unless
  told otherwise, and stops at `max_pages` pages and `depth` links from the start.

Links to obvious non-pages (images, archives, PDFs...) are not followed: the fetcher would
refuse their content type after spending a request.
"""

from __future__ import annotations

import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urldefrag, urlsplit

from crag.errors import CragError
from crag.web.fetch import FetchedPage, PageFetcher

__all__ = ["Crawler", "Fetched", "is_url", "links_of", "site_of"]

MAX_DELAY = 10.0
_SKIP = {
    ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".zip", ".gz", ".tgz",
    ".bz2", ".xz", ".7z", ".rar", ".mp3", ".mp4", ".webm", ".avi", ".mov", ".css", ".js",
    ".woff", ".woff2", ".ttf", ".exe", ".dmg", ".iso", ".docx", ".xlsx", ".pptx", ".epub",
}  # fmt: skip


def is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


def site_of(url: str) -> str:
    """scheme://host:port — what `same_site` compares."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def links_of(page: FetchedPage) -> list[str]:
    """Absolute http(s) links of an HTML page (`<a href>`), fragments dropped, in order."""
    if page.content_type == "text/plain" or not page.body.strip():
        return []
    import lxml.html

    try:
        doc = lxml.html.document_fromstring(page.body)
        doc.make_links_absolute(page.final_url, resolve_base_href=True)
    except Exception:  # broken markup (lxml raises several kinds): no links to follow
        return []
    found: list[str] = []
    for element, attribute, link, _ in doc.iterlinks():
        if element.tag != "a" or attribute != "href":
            continue
        url = urldefrag(link.strip())[0]
        path = urlsplit(url).path.lower()
        if is_url(url) and not any(path.endswith(s) for s in _SKIP):
            found.append(url)
    return list(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class Fetched:
    """One crawled URL: the page, or why there is none (`error`)."""

    url: str
    depth: int
    page: FetchedPage | None = None
    error: str = ""


class Crawler:
    """Fetches start URLs and, to `depth`, the pages they link to — politely (see above)."""

    def __init__(
        self,
        fetcher: PageFetcher,
        *,
        depth: int = 0,
        same_site: bool = True,
        max_pages: int = 50,
        delay: float = 0.5,
        robots: bool = True,
        user_agent: str = "crag",
        skip: Callable[[str], bool] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`skip(url)`: true for a start URL that needs no fetch (already indexed, no
        `--refresh`); it is reported as skipped and its links are not followed."""
        if depth < 0 or max_pages < 1:
            raise CragError("--crawl DEPTH must be >= 0 and --max-pages >= 1")
        self.fetcher = fetcher
        self.depth = depth
        self.same_site = same_site
        self.max_pages = max_pages
        self.delay = delay
        self.robots = robots
        self.user_agent = user_agent
        self._skip = skip or (lambda url: False)
        self._sleep = sleep
        self._rules: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        self._last: dict[str, float] = {}

    def crawl(self, urls: list[str]) -> Iterator[Fetched]:
        """Breadth first; each URL at most once; at most `max_pages` fetched."""
        queue = deque((urldefrag(u)[0], 0, site_of(u)) for u in urls)
        seen = {u for u, _, _ in queue}
        fetched = 0
        while queue and fetched < self.max_pages:
            url, depth, start_site = queue.popleft()
            if self._skip(url):
                yield Fetched(url, depth, error="skipped")
                continue
            if self.robots and not self._allowed(url):
                yield Fetched(url, depth, error="disallowed by robots.txt")
                continue
            self._wait(url)
            fetched += 1
            try:
                page = self.fetcher.fetch(url)
            except CragError as exc:
                yield Fetched(url, depth, error=str(exc).removeprefix(f"{url}: "))
                continue
            yield Fetched(url, depth, page)
            if depth >= self.depth:
                continue
            for link in links_of(page):
                if link in seen or (self.same_site and site_of(link) != start_site):
                    continue
                seen.add(link)
                queue.append((link, depth + 1, start_site))

    def _wait(self, url: str) -> None:
        site = site_of(url)
        rules = self._rules.get(site)
        delay = self.delay
        if rules is not None:
            asked = rules.crawl_delay(self.user_agent)
            if asked is not None:
                delay = min(max(float(asked), delay), MAX_DELAY)
        last = self._last.get(site)
        if last is not None:
            wait = last + delay - time.monotonic()
            if wait > 0:
                self._sleep(wait)
        self._last[site] = time.monotonic()

    def _allowed(self, url: str) -> bool:
        site = site_of(url)
        if site not in self._rules:
            self._rules[site] = self._read_robots(url)
        rules = self._rules[site]
        return rules is None or rules.can_fetch(self.user_agent, url)

    def _read_robots(self, url: str) -> urllib.robotparser.RobotFileParser | None:
        parts = urlsplit(url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        self._wait(robots_url)
        try:
            page = self.fetcher.fetch(robots_url)
        except CragError:
            return None  # no robots.txt (404) or unreachable: everything is allowed
        parser = urllib.robotparser.RobotFileParser(robots_url)
        parser.parse(page.body.decode("utf-8", errors="replace").splitlines())
        return parser
