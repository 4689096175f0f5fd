"""The search double's result pages: each passage served as an HTML page with navigation, a
script and a footer around the article (boilerplate for extraction to remove), and the hostile
kinds a page can be — endless, a trickle, binary, a redirect."""

from __future__ import annotations

from html import escape
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["PageHandler", "page_html", "title_of"]


def title_of(text: str, words: int = 8) -> str:
    """NQ passages have no title: the first words stand in for one."""
    head = text.split()
    return " ".join(head[:words]) + (" …" if len(head) > words else "")


def page_html(doc: dict[str, str]) -> bytes:
    title = escape(doc.get("title") or title_of(doc["text"]))
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in doc["text"].split("\n\n") if p.strip())
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{title}</title>"
        "<script>window.tracker = 'SCRIPT-TEXT-MUST-NOT-BE-EXTRACTED';</script>"
        "<style>body { font-family: serif }</style></head><body>"
        "<nav><a href='/'>Home</a> · <a href='/random'>Random page</a> · "
        "<a href='/help'>Help</a></nav>"
        f"<main><article><h1>{title}</h1>{paragraphs}</article></main>"
        "<footer>Local search double · test corpus · not the real web</footer>"
        "</body></html>"
    ).encode()


class PageHandler(BaseHTTPRequestHandler):
    """Serves `/page/<id>` from `site.docs`; the search double's handler adds the search APIs."""

    protocol_version = "HTTP/1.1"
    site: Any  # the SearchDouble serving (set by the subclass)

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout test): fine

    def _page(self, doc_id: str) -> None:
        doc = self.site.docs.get(doc_id)
        if doc is None:
            return self._send(404, b"<h1>not found</h1>", "text/html")
        kind = doc.get("kind", "html")
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", doc["target"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if kind == "binary":
            return self._send(200, b"\x00\x01" * 64, "application/octet-stream")
        if kind in ("endless", "slow"):
            return self._endless(doc, slow=kind == "slow")
        return self._send(200, page_html(doc), "text/html; charset=utf-8")

    def _endless(self, doc: dict[str, Any], slow: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = f"<p>{escape(doc['text'])}</p>".encode()
        try:
            self._chunk(b"<html><body><article>")
            while not self.site._stopping.is_set():
                self._chunk(piece)
                if slow:
                    self.site._stopping.wait(0.2)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
