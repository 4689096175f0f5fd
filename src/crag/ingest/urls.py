"""`crag ingest URL…`: web pages into the index, cited by their URL.

A page is indexed under its URL (the source name `crag sources` lists and `crag remove URL`
drops); its chunks link to the page's final URL (after redirects) and carry `type` (`html`
or `txt`), `site` (the host) and `fetched` (seconds since the epoch) for `--where`.

- A URL already indexed is not fetched again unless `refresh` is asked; a refreshed page whose
  bytes did not change is reported unchanged (its digest is compared, as for files).
- A page larger than the size limit is refused with a reason, not indexed cut short.
- Pages are fetched first (outside the writer lock: the network is slow), then written in one
  locked step, so a failed fetch never touches what is indexed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit

from crag.config import WebSettings
from crag.index.store import PreparedSource
from crag.ingest.crawl import Crawler, Fetched
from crag.ingest.ingestor import Ingestor
from crag.ingest.metadata import source_metadata
from crag.ingest.report import IngestProgress, IngestReport
from crag.web.fetch import PageFetcher

__all__ = ["UrlOptions", "ingest_urls", "make_fetcher"]


class UrlOptions:
    """How URLs are fetched: `refresh`, crawl `depth`, `same_site`, `max_pages`, politeness
    (`delay`, `robots`) and the size limit `max_bytes` (default: web.max_page_bytes)."""

    def __init__(
        self,
        *,
        refresh: bool = False,
        depth: int = 0,
        same_site: bool = True,
        max_pages: int = 50,
        delay: float = 0.5,
        robots: bool = True,
        max_bytes: int | None = None,
    ) -> None:
        self.refresh = refresh
        self.depth = depth
        self.same_site = same_site
        self.max_pages = max_pages
        self.delay = delay
        self.robots = robots
        self.max_bytes = max_bytes


def make_fetcher(web: WebSettings, max_bytes: int | None = None) -> PageFetcher:
    """The web search's page reader, with the same SSRF rules and user agent."""
    return PageFetcher(
        timeout=web.fetch_timeout,
        max_bytes=max_bytes or web.max_page_bytes,
        max_redirects=web.max_redirects,
        allow_private_addresses=web.allow_private_addresses,
        user_agent=web.user_agent,
    )


def ingest_urls(
    ingestor: Ingestor,
    urls: list[str],
    web: WebSettings,
    options: UrlOptions | None = None,
    progress: IngestProgress | None = None,
    *,
    fetcher: PageFetcher | None = None,
    on_page: Callable[[Fetched], None] | None = None,
) -> IngestReport:
    """Fetch `urls` (and, with `options.depth`, what they link to), then index the pages."""
    options = options or UrlOptions()
    report = IngestReport()
    started = time.perf_counter()
    catalog = ingestor.index.catalog

    def known(url: str) -> bool:
        info = catalog.source(url)
        return not options.refresh and info is not None and info.state == "done"

    own = fetcher is None
    fetcher = fetcher or make_fetcher(web, options.max_bytes)
    crawler = Crawler(
        fetcher,
        depth=options.depth,
        same_site=options.same_site,
        max_pages=options.max_pages,
        delay=options.delay,
        robots=options.robots,
        user_agent=web.user_agent,
        skip=known,
    )
    prepared = []
    try:
        for got in crawler.crawl(urls):
            if on_page is not None:
                on_page(got)
            item = _prepare(ingestor, got, report, fetcher.max_bytes)
            if item is not None:
                prepared.append(item)
                if progress is not None:
                    progress.chunks_planned(len(item.chunks))
    finally:
        if own:
            fetcher.close()
    ingestor.write(prepared, report, progress)
    report.seconds = time.perf_counter() - started
    return report


def _prepare(
    ingestor: Ingestor, got: Fetched, report: IngestReport, max_bytes: int
) -> PreparedSource | None:
    if got.error == "skipped":
        report.unchanged.append(got.url)
        return None
    if got.page is None:
        report.failed.append((got.url, got.error))
        return None
    page = got.page
    if page.truncated:
        report.failed.append(
            (got.url, f"page is larger than the size limit ({max_bytes} bytes); not indexed")
        )
        return None
    kind = "txt" if page.content_type == "text/plain" else "html"
    base = source_metadata(
        f"page.{kind}", site=urlsplit(page.final_url).hostname or "", fetched=round(time.time())
    )
    return ingestor.prepare_bytes(
        page.body, got.url, got.url, report, base, load_as=f"page.{kind}", url=page.final_url
    )
