"""A real HTTP server on 127.0.0.1 for tests: started in a thread, stopped on exit.

The test servers (an Ollama API in front of the packaged model, a misbehaving OpenAI/Ollama
server) subclass `Handler`; `serve(handler_cls, **state)` starts one on a free port and yields
it with `.url`. Responses can be JSON, chunked streams (as Ollama and OpenAI send them) or a
connection that simply closes mid-stream.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Handler", "LoopbackServer", "serve"]


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True
    state: dict[str, Any]

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LoopbackServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    @property
    def state(self) -> dict[str, Any]:
        return self.server.state

    def read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw) if raw else None

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.send_bytes(status, json.dumps(body).encode(), "application/json", headers)

    def send_bytes(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    # chunked streaming, as Ollama (NDJSON) and OpenAI servers (SSE) send it
    def start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def send_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def cut_connection(self) -> None:
        """Close the socket without finishing the response: a server that died mid-answer."""
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(2)


@contextmanager
def serve(handler: type[Handler], **state: Any) -> Iterator[LoopbackServer]:
    server = LoopbackServer(("127.0.0.1", 0), handler)
    server.state = state
    thread = threading.Thread(target=server.serve_forever, name="loopback-http", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
