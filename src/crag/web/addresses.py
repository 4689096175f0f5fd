"""Which addresses a result page may be read from: resolved once, checked, connected to as checked.

A search result is a URL chosen by someone else, so a page is read only from public addresses:
private, loopback, link-local, multicast, reserved and unspecified addresses are refused
(`BlockedAddressError`), as are IPv4 addresses wrapped in IPv6 forms (mapped, 6to4, Teredo,
NAT64). A host is refused when *any* address it resolves to is internal.

Checking a name and then letting the HTTP client resolve it again to connect leaves a window:
a DNS server that answers with a public address for the check and an internal one for the
connection (DNS rebinding) reaches the internal one. So the page reader resolves each host once,
at connect time, checks every address, and connects to a checked address itself
(`crag.web.deadline.DeadlineBackend` with a `guard`); TLS still verifies the
certificate against the host's name. The resolution is bounded by the fetch's deadline too.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from crag.errors import BlockedAddressError, PageFetchError

__all__ = [
    "Resolver",
    "check_public",
    "check_target",
    "public_addresses",
    "resolve_within",
    "system_resolver",
]

Resolver = Callable[[str, int], list[str]]
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolves `host` to, for a TCP connection to `port`."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))  # the resolver's order


def _internal(ip: Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None and _internal(inner):
            return True
        if ip in ipaddress.IPv6Network("64:ff9b::/96"):  # NAT64 of an IPv4 address
            return _internal(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return None


def check_target(url: str) -> tuple[str, int]:
    """The host and port `url` names, checked without resolving: an http(s) URL with a host,
    a valid port, and no internal address written as the host. Raises `BlockedAddressError`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BlockedAddressError(url, f"scheme {parts.scheme!r} is not http(s)")
    host = parts.hostname
    if not host:
        raise BlockedAddressError(url, "no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise BlockedAddressError(url, f"bad port: {exc}") from exc
    if (ip := _literal(host)) is not None and _internal(ip):
        raise BlockedAddressError(url, _blocked_reason(host, ip))
    return host, port


def public_addresses(url: str, host: str, port: int, resolver: Resolver) -> list[str]:
    """The addresses `host` resolves to, all of them public, in the resolver's order. Raises
    `BlockedAddressError` (naming `url`) when any is internal, `PageFetchError` when the name
    does not resolve."""
    if _literal(host) is not None:
        addresses = [host]
    else:
        try:
            addresses = resolver(host, port)
        except OSError as exc:
            raise PageFetchError(url, f"cannot resolve {host}: {exc}") from exc
    if not addresses:
        raise PageFetchError(url, f"{host} resolves to no address")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if _internal(ip):
            raise BlockedAddressError(url, _blocked_reason(host, ip))
    return addresses


def check_public(url: str, resolver: Resolver = system_resolver) -> None:
    """Raise `BlockedAddressError` unless every address `url`'s host resolves to is public."""
    host, port = check_target(url)
    public_addresses(url, host, port, resolver)


def resolve_within(resolver: Resolver, host: str, port: int, seconds: float | None) -> list[str]:
    """`resolver(host, port)`, given at most `seconds`: `TimeoutError` after that. The system
    resolver cannot be interrupted, so it finishes in a daemon thread nobody waits for."""
    if seconds is None:
        return resolver(host, port)
    result: list[list[str] | BaseException] = []

    def run() -> None:
        try:
            result.append(resolver(host, port))
        except BaseException as exc:  # handed to the caller below
            result.append(exc)

    worker = threading.Thread(target=run, name=f"crag-resolve-{host}", daemon=True)
    worker.start()
    worker.join(seconds)
    if not result:
        raise TimeoutError(f"resolving {host} took longer than the {seconds:.1f}s left")
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]


def _blocked_reason(host: str, ip: Address) -> str:
    return (
        f"{host} resolves to {ip}, an internal address (SSRF protection; "
        "web.allow_private_addresses=true allows it for local test servers)"
    )
