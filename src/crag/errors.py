"""One exception tree for crag. Every message says what went wrong and what to do.

Catch `CragError` to handle anything crag raises on purpose; the CLI turns these into a
one-line error instead of a traceback.
"""

from __future__ import annotations

__all__ = [
    "BlockedAddressError",
    "ConfigError",
    "CragError",
    "EmbeddingMismatchError",
    "IndexCorruptError",
    "LLMAuthError",
    "LLMError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "LLMUnavailableError",
    "LoaderError",
    "ModelLoadError",
    "PageFetchError",
    "UnsupportedFileError",
    "WebSearchError",
    "WebSearchResponseError",
    "WebSearchTimeout",
    "WebSearchUnavailable",
]


class CragError(Exception):
    """Base class of every error crag raises on purpose."""


class ConfigError(CragError):
    """A setting is missing or invalid; the message names the setting."""


class LoaderError(CragError):
    """A file could not be read into documents. Carries the path and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class UnsupportedFileError(LoaderError):
    """No loader handles this file type."""


class ModelLoadError(CragError):
    """A model could not be loaded (missing package, wrong path, no network for a hub name)."""


class EmbeddingMismatchError(CragError):
    """The index was built with another embedding model than the one configured now."""

    def __init__(self, indexed: str, configured: str, collection: str) -> None:
        self.indexed = indexed
        self.configured = configured
        super().__init__(
            f"collection {collection!r} was indexed with embedding model {indexed!r}, but "
            f"{configured!r} is configured. Set CRAG_EMBEDDING__MODEL={indexed!r} to query it, "
            f"or ingest into another collection (CRAG_COLLECTION=...)."
        )


class IndexCorruptError(CragError):
    """The on-disk index cannot be opened or repaired."""


class LLMError(CragError):
    """A language model call failed or returned something unusable; names the model.

    `provider` and `model` say which one (empty for errors raised before a provider exists);
    HTTP providers add the `status` code, the server's own words (`detail`) and, for 429/503,
    the `retry_after` seconds it asked for. Messages never contain an API key: they are built
    from the URL, status and body, with the key's value redacted should a server echo it.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        model: str = "",
        status: int | None = None,
        detail: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.status = status
        self.detail = detail
        self.retry_after = retry_after
        super().__init__(message)


class LLMUnavailableError(LLMError):
    """The provider could not be reached (connection refused, DNS, TLS): is the server up?"""


class LLMTimeoutError(LLMError):
    """The provider did not answer within the configured timeout."""


class LLMRateLimitError(LLMError):
    """The provider kept answering 429 Too Many Requests after the bounded retries."""


class LLMServerError(LLMError):
    """The provider kept failing with 5xx after the bounded retries."""


class LLMAuthError(LLMError):
    """The provider rejected the credentials (401/403), or the key's variable is unset."""


class LLMRequestError(LLMError):
    """The provider rejected the request (400/404/422): unknown model, bad parameter."""


class LLMResponseError(LLMError):
    """The provider answered with something unusable: malformed JSON, a truncated stream."""


class WebSearchError(CragError):
    """Web search failed. The pipeline turns it into a degraded answer and a trace entry.

    `provider` names the search provider ("tavily", "searxng", ...), or "fetch" for a page.
    """

    def __init__(self, provider: str, message: str) -> None:
        self.provider = provider
        super().__init__(f"{provider}: {message}")


class WebSearchUnavailable(WebSearchError):
    """The provider cannot be used: no API key, unreachable, library missing, refused access."""


class WebSearchTimeout(WebSearchError):
    """The provider did not answer within the configured timeout."""


class WebSearchResponseError(WebSearchError):
    """The provider answered with an error status or a body that is not what its API promises."""


class PageFetchError(WebSearchError):
    """A result page could not be fetched or read (status, type, size, timeout); its snippet is
    used instead."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__("fetch", f"{url}: {reason}")


class BlockedAddressError(PageFetchError):
    """A page URL resolves to a private, loopback, link-local or otherwise internal address
    (SSRF protection). Set `web.allow_private_addresses = true` only for local test servers."""
