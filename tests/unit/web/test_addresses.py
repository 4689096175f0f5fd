"""The page reader resolves a host once, checks every address and connects to a checked one:
DNS rebinding (a public answer for the check, an internal one for the connection) reaches
nothing internal. Against a real HTTP server on 127.0.0.1; the "internet" is a patched
`socket.create_connection` that refuses public addresses (this machine has no network), or
routes one of them to the local server."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from tests.servers.site import serve_site

from crag.errors import BlockedAddressError, PageFetchError
from crag.web.addresses import check_target, public_addresses, resolve_within
from crag.web.fetch import PageFetcher

PUBLIC, OTHER_PUBLIC = "93.184.216.34", "93.184.216.35"
PAGE = "<html><body><p>" + "The rebinding test page holds enough text to read. " * 4 + "</p>"


@pytest.fixture()
def site() -> Iterator:
    with serve_site({"/page": PAGE}) as server:
        yield server


@pytest.fixture()
def network(monkeypatch, site) -> dict:
    """Name lookups answered from `answers` (host -> one list per lookup, the last repeated),
    connections recorded; a connection to a public address is refused, unless `routes` sends
    it to the local site."""
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.create_connection
    net: dict = {"answers": {}, "lookups": [], "connects": [], "routes": {}}

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in net["answers"]:
            return real_getaddrinfo(host, port, *args, **kwargs)
        net["lookups"].append(host)
        answers = net["answers"][host]
        address = answers.pop(0) if len(answers) > 1 else answers[0]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    def create_connection(address, *args, **kwargs):
        net["connects"].append(address[0])
        if address[0] in net["routes"]:
            return real_connect(net["routes"][address[0]], *args, **kwargs)
        if address[0] in (PUBLIC, OTHER_PUBLIC):
            raise ConnectionRefusedError("no network in this test")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    return net


def test_dns_rebinding_never_reaches_the_internal_address(site, network) -> None:
    port = site.server_address[1]
    network["answers"]["rebind.test"] = [PUBLIC, "127.0.0.1"]  # public first, then loopback
    fetcher = PageFetcher(timeout=2.0)
    with pytest.raises(PageFetchError) as caught:
        fetcher.fetch(f"http://rebind.test:{port}/page")
    assert not isinstance(caught.value, BlockedAddressError)  # refused by the "network"
    assert caught.value.url == f"http://rebind.test:{port}/page"
    assert network["lookups"] == ["rebind.test"]  # resolved once
    assert network["connects"] == [PUBLIC]  # to the checked address, never to the name
    assert site.state["log"] == []


def test_a_name_resolving_to_loopback_is_blocked_as_it_connects(site, network) -> None:
    port = site.server_address[1]
    network["answers"]["inside.test"] = ["127.0.0.1"]
    with pytest.raises(BlockedAddressError, match=r"inside\.test resolves to 127\.0\.0\.1"):
        PageFetcher(timeout=2.0).fetch(f"http://inside.test:{port}/page")
    assert network["connects"] == [] and site.state["log"] == []


def test_each_host_is_checked_as_its_connection_is_made(site, network) -> None:
    port = site.server_address[1]
    site.state["pages"]["/moved"] = PAGE  # reached through the route below
    network["answers"]["start.test"] = [PUBLIC]
    network["routes"][PUBLIC] = ("127.0.0.1", port)
    network["answers"]["evil.test"] = ["127.0.0.1"]
    fetcher = PageFetcher(timeout=2.0)
    assert b"rebinding test page" in fetcher.fetch(f"http://start.test:{port}/page").body
    with pytest.raises(BlockedAddressError, match=r"evil\.test resolves to 127\.0\.0\.1"):
        fetcher.fetch(f"http://evil.test:{port}/moved")
    assert site.state["log"] == ["/page"]


def test_the_next_checked_address_is_tried_when_one_refuses(site, network) -> None:
    port = site.server_address[1]
    network["answers"]["two.test"] = [PUBLIC]
    network["routes"][OTHER_PUBLIC] = ("127.0.0.1", port)
    fetcher = PageFetcher(timeout=2.0, resolver=lambda host, p: [PUBLIC, OTHER_PUBLIC])
    page = fetcher.fetch(f"http://two.test:{port}/page")
    assert b"rebinding test page" in page.body
    assert network["connects"] == [PUBLIC, OTHER_PUBLIC]
    assert network["lookups"] == []  # the injected resolver was asked, not the system's


def test_a_slow_resolver_ends_within_the_fetch_deadline() -> None:
    def slow(host: str, port: int) -> list[str]:
        time.sleep(5)
        return [PUBLIC]

    started = time.monotonic()
    with pytest.raises(PageFetchError, match=r"cannot resolve slow\.test"):
        PageFetcher(timeout=0.5, resolver=slow).fetch("http://slow.test/page")
    assert time.monotonic() - started < 1.5


def test_resolve_within_passes_results_and_errors_through() -> None:
    assert resolve_within(lambda h, p: [PUBLIC], "a.test", 80, 1.0) == [PUBLIC]
    assert resolve_within(lambda h, p: [PUBLIC], "a.test", 80, None) == [PUBLIC]

    def fails(host: str, port: int) -> list[str]:
        raise socket.gaierror("Name or service not known")

    with pytest.raises(socket.gaierror):
        resolve_within(fails, "a.test", 80, 1.0)


def test_check_target_checks_without_resolving() -> None:
    assert check_target("https://example.test/x") == ("example.test", 443)
    assert check_target("http://example.test:8080/") == ("example.test", 8080)
    for url in ("ftp://example.test/", "http:///x", "http://example.test:99999/"):
        with pytest.raises(BlockedAddressError):
            check_target(url)
    with pytest.raises(BlockedAddressError, match="internal address"):
        check_target("http://[::ffff:10.0.0.1]/")


def test_public_addresses_names_the_url_and_every_bad_address() -> None:
    url = "http://mixed.test/"
    assert public_addresses(url, "m.test", 80, lambda h, p: [PUBLIC]) == [PUBLIC]
    with pytest.raises(BlockedAddressError, match=r"10\.0\.0\.5") as caught:
        public_addresses(url, "m.test", 80, lambda h, p: [PUBLIC, "10.0.0.5"])
    assert caught.value.url == url
    with pytest.raises(PageFetchError, match="resolves to no address"):
        public_addresses(url, "m.test", 80, lambda h, p: [])
