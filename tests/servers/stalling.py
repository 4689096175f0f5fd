"""HTTP servers on 127.0.0.1 that attack a client's deadline, written on raw sockets so that
each byte's timing is under control (issue 21, F3).

`StallingServer` answers by path:

- `/trickle-headers`: a status line, then one header byte every `gap` seconds, forever.
- `/trickle-body`: full HTML headers, then one body byte every `gap` seconds, forever.
- `/silent`: reads the request and never answers.
- `/redirect/<n>`: waits `gap` seconds, then 302 to `/redirect/<n+1>` (an endless chain of
  slow hops, each well within a per-operation timeout).
- `/redirect-to-trickle`: 302 to `/trickle-headers`.
- `/ok`: a small HTML page at once.

`full_backlog()` yields the URL of a port whose accept queue is full, so a new connection
hangs in connect (SYNs dropped), a slow connect without TLS.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["StallingServer", "full_backlog"]


class StallingServer:
    def __init__(self, gap: float = 0.2) -> None:
        self.gap = gap
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(32)
        self._sock.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> StallingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(5)
                request = b""
                while b"\r\n\r\n" not in request:
                    data = conn.recv(4096)
                    if not data:
                        return
                    request += data
                path = request.split(b" ", 2)[1].decode()
                self._answer(conn, path)
        except OSError:
            pass  # the client gave up: that is the point

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data)):
            if self._stop.is_set():
                return
            conn.sendall(data[i : i + 1])
            time.sleep(self.gap)

    def _answer(self, conn: socket.socket, path: str) -> None:
        if path == "/trickle-headers":
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            self._drip(conn, b"X-Slow: " + b"a" * 100_000)
        elif path == "/trickle-body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n")
            self._drip(conn, b"<html><body><p>" + b"slow " * 100_000)
        elif path == "/silent":
            self._stop.wait(30)
        elif path.startswith("/redirect/"):
            time.sleep(self.gap)
            n = int(path.rsplit("/", 1)[1]) + 1
            head = f"HTTP/1.1 302 Found\r\nLocation: /redirect/{n}\r\nContent-Length: 0\r\n\r\n"
            conn.sendall(head.encode())
        elif path == "/redirect-to-trickle":
            conn.sendall(
                b"HTTP/1.1 302 Found\r\nLocation: /trickle-headers\r\nContent-Length: 0\r\n\r\n"
            )
        else:
            body = b"<html><body><p>A quick page.</p></body></html>"
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )


@contextmanager
def full_backlog() -> Iterator[str]:
    """A URL whose port accepts no more connections: connect() hangs (SYNs are dropped)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    try:
        for _ in range(8):  # fill the accept queue (never accepted)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            fillers.append(s)
        time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        for s in fillers:
            s.close()
        listener.close()
