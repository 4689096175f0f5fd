"""Secrets out of what crag prints and logs: the userinfo of any URL (`https://user:pass@host`)
becomes `***`.

Why: a password inside a provider's `base_url` (or `chroma_url`, a SearXNG URL) was printed by
errors, `crag models` and `crag config` (issue 21). `redact` is applied to CLI error messages
and output that shows settings, to problem details, and — through `RedactingFilter` on the
log handlers — to every log line and traceback.
"""

from __future__ import annotations

import logging
import re

__all__ = ["RedactingFilter", "install_log_redaction", "redact"]

# scheme://userinfo@ — userinfo holds no '/', '?', '#', '@' or whitespace (RFC 3986)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#@\s\"'<>]+@")


def redact(text: str) -> str:
    """`text` with the userinfo of every URL in it replaced by `***`."""
    if "@" not in text:
        return text
    return _USERINFO.sub(r"\1***@", text)


class RedactingFilter(logging.Filter):
    """Rewrites each record's message (and traceback text) with `redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: let the handler report it as usual
            return True
        if redact(message) != message:
            # Only a record that holds a secret is rewritten; the others keep their args,
            # which some formatters read (uvicorn's access log unpacks them).
            record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def install_log_redaction(*loggers: str) -> None:
    """Add a `RedactingFilter` to every handler of the root logger and of `loggers`."""
    seen: set[int] = set()
    for name in ("", *loggers):
        for handler in logging.getLogger(name).handlers:
            if id(handler) in seen or any(isinstance(f, RedactingFilter) for f in handler.filters):
                continue
            seen.add(id(handler))
            handler.addFilter(RedactingFilter())
