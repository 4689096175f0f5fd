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
A child builds its pipeline with `crag.pipeline.build_pipeline` from the run's settings (the
index was filled before the children start, and no one writes it while they read). It ignores
Ctrl-C, which reaches the whole process group: the parent decides when they stop.
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
import signal
import traceback
from collections.abc import Callable, Sequence
from contextlib import suppress
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

from crag.config import Settings
from crag.errors import CragError
from crag.modes import Mode
from crag.types import Answer

__all__ = ["ModeProcesses"]

Serve = Callable[[Connection, Settings, str], None]
STOP_WAIT_S = 30.0  # a child closes its index and exits; past this it is killed


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
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from crag.index.store import Index
    from crag.pipeline import build_pipeline

    try:
        index = Index.open(settings)
    except CragError as exc:
        conn.send(("error", _portable(exc)))
        return
    try:
        try:
            pipeline = build_pipeline(settings, index)
        except CragError as exc:
            conn.send(("error", _portable(exc)))
            return
        conn.send(("ready", None))
        while (question := conn.recv()) is not None:
            conn.send(_reply(pipeline, question, mode))
    except (EOFError, OSError):  # the parent went away (or closed its end to stop us)
        return
    finally:
        index.close()


class _Child:
    """One mode's process and its end of the pipe."""

    def __init__(self, context: Any, serve: Serve, settings: Settings, mode: str) -> None:
        self.mode = mode
        self.conn, theirs = context.Pipe()
        self.process = context.Process(
            target=serve, args=(theirs, settings, mode), name=f"crag-eval-{mode}", daemon=True
        )
        self.process.start()
        theirs.close()

    def receive(self) -> tuple[str, Any]:
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(timeout=STOP_WAIT_S)
            raise CragError(
                f"the process answering mode {self.mode} ended (exit code "
                f"{self.process.exitcode}); the next question starts a new one"
            ) from None
        if kind == "error":
            raise value
        if kind == "crash":
            raise RuntimeError(f"the process answering mode {self.mode} failed:\n{value}")
        return kind, value

    def stop(self, wait: float = STOP_WAIT_S) -> None:
        """Ask the child to finish, waiting `wait` seconds (an answer under way is finished
        first), then kill it: it writes nothing a kill could leave half done."""
        with suppress(OSError, ValueError):  # already gone
            self.conn.send(None)
        self.conn.close()
        self.process.join(timeout=wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=STOP_WAIT_S)


class ModeProcesses:
    """Ask each mode's questions in that mode's own process (started on first use, with
    multiprocessing's "spawn" so no model or thread of this process is copied into it).

    `serve` is the child's main function (`serve(conn, settings, mode)`, importable by name);
    tests hand in one that answers without models to check the protocol.
    """

    def __init__(
        self, settings: Settings, modes: Sequence[str], *, serve: Serve | None = None
    ) -> None:
        self.settings = settings
        self.modes = [Mode(m).value for m in modes]
        self._serve = serve or _serve
        self._context = mp.get_context("spawn")
        self._children: dict[str, _Child] = {}

    def _child(self, mode: str) -> _Child:
        child = self._children.get(mode)
        if child is not None and not child.process.is_alive():
            child.stop()
            child = None
        if child is None:
            child = _Child(self._context, self._serve, self.settings, mode)
            self._children[mode] = child
            try:
                child.receive()  # "ready": the pipeline is built
            except BaseException:
                self._children.pop(mode).stop()
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
        while self._children:
            _, child = self._children.popitem()
            child.stop(wait)

    def __enter__(self) -> ModeProcesses:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(STOP_WAIT_S if exc is None else 0)  # Ctrl-C or a failure: stop them now
