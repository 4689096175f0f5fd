"""API keys: who may call `/v1/...`, and whether the server may start without any.

Keys come only from the environment (`CRAG_API_KEYS`, comma-separated), never from crag.toml,
so they stay out of files that get committed. A request presents one as `Authorization:
Bearer KEY` (what the OpenAI SDKs send) or `X-API-Key: KEY`. Every configured key is compared
with `hmac.compare_digest`, all of them every time, so timing reveals neither a key nor which
one matched.

Without keys the service is open, which is only allowed on a loopback address (your own
machine); bound beyond it, `crag serve` refuses to start unless told explicitly
(`server.allow_unauthenticated`) that something in front of it does authentication.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Mapping, Sequence

from crag.errors import ConfigError, CragError

__all__ = ["Unauthorized", "check_exposure", "is_loopback", "key_from_headers", "load_keys"]

ENV = "CRAG_API_KEYS"
MIN_KEY_CHARS = 16


class Unauthorized(CragError):
    """No key, or a key that is not configured (401)."""


def load_keys(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The configured keys; too-short keys are refused so a typo does not become a password."""
    raw = (environ if environ is not None else os.environ).get(ENV, "")
    keys = tuple(k.strip() for k in raw.split(",") if k.strip())
    short = [i for i, k in enumerate(keys, start=1) if len(k) < MIN_KEY_CHARS]
    if short:
        raise ConfigError(
            f"{ENV}: key number {short[0]} is shorter than {MIN_KEY_CHARS} characters; "
            "use long random keys, e.g. from "
            "`python -c 'import secrets; print(secrets.token_urlsafe())'`"
        )
    return keys


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1; anything else (0.0.0.0, a name, a LAN address)
    can be reached from other machines."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, keys: Sequence[str], allow_unauthenticated: bool) -> None:
    """Refuse to serve without keys beyond loopback, unless explicitly allowed."""
    if keys or is_loopback(host) or allow_unauthenticated:
        return
    raise ConfigError(
        f"refusing to serve on {host} without API keys: anyone who can reach this address could "
        f"use the service. Set {ENV}=key1,key2 (long random strings), bind to 127.0.0.1, or, "
        "if a proxy in front does authentication, pass --allow-unauthenticated "
        "(CRAG_SERVER__ALLOW_UNAUTHENTICATED=true)"
    )


def key_from_headers(headers: Mapping[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = headers.get("x-api-key", "").strip()
    return key or None


def authorize(keys: Sequence[str], presented: str | None) -> None:
    """Raise `Unauthorized` unless `presented` is one of `keys` (no keys configured: open)."""
    if not keys:
        return
    if presented is None:
        raise Unauthorized(
            "an API key is required: send 'Authorization: Bearer KEY' or 'X-API-Key'"
        )
    given = presented.encode("utf-8", "surrogateescape")
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key.encode("utf-8"))
    if not matched:
        raise Unauthorized("the API key is not valid")
