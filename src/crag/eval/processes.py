"""Each mode of an eval run answers in a process of its own.

Why: modes asked in one process share its caches. llama.cpp's prompt cache keeps an earlier
mode's computed prompts (rag's reading of the very chunks crag's strips start with, crag's
prompts that self-crag asks again) and the reranker keeps its scores, so a mode's latency comes
out too low beside another's, and its answers can differ from a run of that mode alone (a
prompt found in the cache is evaluated in other batches). With a process per mode each mode
loads its own models and finds only its own work, exactly as in a run of its own, while the
harness still alternates the modes question by question so load from other work hits them
alike. The cost: each mode loads the models once more (seconds, and their memory).

`ModeProcesses` is an `Asker` (crag.eval.harness): the harness does not know the difference.
A child is a new interpreter (`python -c "...child_main(FD)"`) that talks pickles over a socket
pair, not a multiprocessing child: "spawn" would run the caller's main script again in it, and
a script calling `run_eval` without an `if __name__ == "__main__":` guard would then fail.
It builds its pipeline with `crag.pipeline.build_pipeline` from the run's settings (the index
was filled before the children start, and no one writes it while they read). It ignores
Ctrl-C, which reaches the whole process group: the parent decides when they stop.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import closing, suppress
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

from crag.config import Settings
from crag.errors import CragError
from crag.modes import Mode
from crag.types import Answer

__all__ = ["ModeProcesses", "child_main"]

Serve = Callable[[Connection, Settings, str], None]
STOP_WAIT_S = 30.0  # a child asked to stop finishes its answer, closes its index and exits
# after SIGTERM, before the kill: the handler runs once the model call under way returns
# (seconds), then the `finally` blocks. Ctrl-C waits this long at most; a kill leaves nothing
# that matters (the index is only read; a half-assembled model is deleted by the next start).
TERM_WAIT_S = 3.0


def _portable(exc: CragError) -> CragError:
    """`exc` if it survives pickling (the record names its class), else a plain CragError
    carrying the class name and message."""
    try:
        return pickle.loads(pickle.dumps(exc))  # type: ignore[no-any-return]
    except Exception:
        return CragError(f"{type(exc).__name__}: {exc}")


def _reply(pipeline: Any, question: str, mode: str) -> tuple[str, Any]:
    try:
        return "answer", pipeline.ask(question, mode)
    except CragError as exc:
        return "error", _portable(exc)
    except Exception:
        return "crash", traceback.format_exc()


def _serve(conn: Connection, settings: Settings, mode: str) -> None:
    """The child: build the pipeline, say it is ready, then answer each question sent until
    None comes or the parent's end of the pipe closes."""
    from crag.index.store import Index
    from crag.pipeline import build_pipeline

    try:
        index = Index.open(settings)
    except CragError as exc:
        conn.send(("error", _portable(exc)))
        return
    # EOFError, OSError: the parent went away (or closed its end to stop us)
    with closing(index), suppress(EOFError, OSError):
        try:
            pipeline = build_pipeline(settings, index)
        except CragError as exc:
            conn.send(("error", _portable(exc)))
            return
        conn.send(("ready", None))
        while (question := conn.recv()) is not None:
            conn.send(_reply(pipeline, question, mode))


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def child_main(fd: int) -> None:
    """A mode's process: read what to run (the serve function, the settings, the mode) from
    the socket `fd`, then run it. Ctrl-C is the parent's to handle; SIGTERM, the parent's
    way to stop a busy child, exits through `finally` blocks (a model half assembled on first
    use is deleted, the index closed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)
    conn = Connection(fd)
    serve, settings, mode = conn.recv()
    serve(conn, settings, mode)


class _Child:
    """One mode's process and its end of the socket pair."""

    def __init__(self, serve: Serve, settings: Settings, mode: str) -> None:
        self.mode = mode
        ours, theirs = socket.socketpair()
        with theirs:
            fd = theirs.fileno()
            code = f"from crag.eval.processes import child_main; child_main({fd})"
            self.process = subprocess.Popen(
                [sys.executable, "-c", code],
                pass_fds=(fd,),
                stdin=subprocess.DEVNULL,
                # what this process imports from (a source tree, a test folder), first
                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            )
        self.conn = Connection(ours.detach())
        self.conn.send((serve, settings, mode))

    def alive(self) -> bool:
        return self.process.poll() is None

    def receive(self) -> tuple[str, Any]:
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            with suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_WAIT_S)
            code = self.process.returncode
            killed = (
                " — killed, perhaps for want of memory: each mode's process loads the models "
                "again, `--one-process` loads them once"
                if code == -signal.SIGKILL
                else ""
            )
            raise CragError(
                f"the process answering mode {self.mode} ended (exit code {code}){killed}; "
                "the next question starts a new one"
            ) from None
        if kind == "error":
            raise value
        if kind == "crash":
            raise RuntimeError(f"the process answering mode {self.mode} failed:\n{value}")
        return kind, value

    def stop(self, wait: float = STOP_WAIT_S) -> None:
        _stop([self], wait)


def _stop(children: Sequence[_Child], wait: float) -> None:
    """Ask every child to finish and give them `wait` seconds (an answer under way is finished
    first); then SIGTERM, which they leave through their `finally` blocks; one not gone
    TERM_WAIT_S later is killed. All together, so stopping N busy children takes one wait."""
    for child in children:
        with suppress(OSError, ValueError):  # already gone
            child.conn.send(None)
        child.conn.close()
    _wait(children, wait)
    for child in children:
        if child.process.poll() is None:
            child.process.terminate()
    _wait(children, TERM_WAIT_S)
    for child in children:
        if child.process.poll() is None:
            child.process.kill()
            child.process.wait(timeout=STOP_WAIT_S)


def _wait(children: Sequence[_Child], seconds: float) -> None:
    """Wait until every child has exited or `seconds` have passed, whichever comes first."""
    deadline = time.monotonic() + seconds
    for child in children:
        with suppress(subprocess.TimeoutExpired):
            child.process.wait(timeout=max(0.0, deadline - time.monotonic()))


class ModeProcesses:
    """Ask each mode's questions in that mode's own process (a new interpreter, started on
    first use: no model or thread of this process is copied into it).

    `serve` is the child's main function (`serve(conn, settings, mode)`, importable by name);
    tests hand in one that answers without models to check the protocol.
    """

    def __init__(
        self, settings: Settings, modes: Sequence[str], *, serve: Serve | None = None
    ) -> None:
        self.settings = settings
        self.modes = [Mode(m).value for m in modes]
        self._serve = serve or _serve
        self._children: dict[str, _Child] = {}

    def _child(self, mode: str) -> _Child:
        child = self._children.get(mode)
        if child is not None and not child.alive():
            child.stop()
            child = None
        if child is None:
            child = _Child(self._serve, self.settings, mode)
            self._children[mode] = child
            try:
                child.receive()  # "ready": the pipeline is built
            except BaseException:
                self._children.pop(mode).stop(0)  # it failed to start, or Ctrl-C meanwhile
                raise
        return child

    def ask(self, question: str, mode: Any = Mode.CRAG) -> Answer:
        mode = Mode(mode).value
        if mode not in self.modes:
            raise CragError(f"mode {mode!r} is not one of this run's: {', '.join(self.modes)}")
        child = self._child(mode)
        with suppress(OSError, ValueError):  # it died: receive() says so
            child.conn.send(question)
        _, answer = child.receive()
        assert isinstance(answer, Answer)
        return answer

    def close(self, wait: float = STOP_WAIT_S) -> None:
        children, self._children = list(self._children.values()), {}
        _stop(children, wait)

    def __enter__(self) -> ModeProcesses:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(STOP_WAIT_S if exc is None else 0)  # Ctrl-C or a failure: stop them now
