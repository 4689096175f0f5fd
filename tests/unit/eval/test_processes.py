"""`ModeProcesses`: each mode answers in a process of its own, and what can go wrong there
(an error, a crash, a process that dies, Ctrl-C) reaches the harness as it would in one process.

The children here run `_fake_serve`, which speaks the real protocol without loading a model:
these tests check the parent's side. `tests/integration/test_eval_live.py` runs `crag eval`
with a process per mode over the real pipeline and models.
"""

from __future__ import annotations

import os
import signal
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from crag.config import Settings
from crag.errors import CragError, LLMTimeoutError
from crag.eval.processes import ModeProcesses, _portable, _reply
from crag.modes import Mode
from crag.trace import Trace
from crag.types import Answer


def _answer(question: str, text: str) -> Answer:
    trace = Trace(question=question, mode=Mode.RAG)
    return Answer(question, text, citations=[], verdict=None, refused=False, trace=trace)


class _Pipeline:
    def ask(self, question: str, mode: str) -> Answer:
        if question == "fail":
            raise LLMTimeoutError("the model did not answer within 1 s", model="tiny")
        if question == "crash":
            raise ZeroDivisionError("a bug")
        if question == "die":
            os._exit(3)
        if question == "oom":  # what the kernel's out-of-memory killer does
            os.kill(os.getpid(), signal.SIGKILL)
        return _answer(question, f"{mode} in {os.getpid()}")


def _fake_serve(conn: Connection, settings: Settings, mode: str) -> None:
    """The real loop (`_reply`) over a pipeline without models; self-crag cannot be built."""
    if mode == Mode.SELF_CRAG:
        conn.send(("error", CragError("self-crag needs a reflector")))
        return
    conn.send(("ready", None))
    try:
        while (question := conn.recv()) is not None:
            if question == "slow":
                time.sleep(60)
            conn.send(_reply(_Pipeline(), question, mode))
    finally:  # what the real child does here: close its index
        (settings.data_dir / f"{mode}.closed").write_text("yes")


def test_each_mode_answers_in_a_process_of_its_own(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with ModeProcesses(settings, ["rag", "crag"], serve=_fake_serve) as processes:
        rag = processes.ask("q1", "rag").text
        crag = processes.ask("q1", Mode.CRAG).text
        assert processes.ask("q2", "rag").text == rag  # the same process answers again
        with pytest.raises(CragError, match="not one of this run's"):
            processes.ask("q", "self-crag")
    pids = {int(t.rsplit(" ", 1)[1]) for t in (rag, crag)}
    assert rag.startswith("rag in") and crag.startswith("crag in")
    assert len(pids) == 2 and os.getpid() not in pids


def test_errors_crashes_and_a_dead_process_reach_the_caller(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with ModeProcesses(settings, ["rag", "self-crag"], serve=_fake_serve) as processes:
        with pytest.raises(LLMTimeoutError, match="within 1 s"):  # the class survives
            processes.ask("fail", "rag")
        with pytest.raises(RuntimeError, match="ZeroDivisionError: a bug"):
            processes.ask("crash", "rag")
        first = processes.ask("q", "rag").text
        with pytest.raises(CragError, match=r"ended \(exit code 3\)"):
            processes.ask("die", "rag")
        again = processes.ask("q", "rag").text  # a new process
        with pytest.raises(CragError, match=r"exit code -9\) — killed.*--one-process"):
            processes.ask("oom", "rag")
        assert first != again and again.startswith("rag in")
        with pytest.raises(CragError, match="needs a reflector"):  # it could not be built
            processes.ask("q", "self-crag")
        assert list(processes._children) == ["rag"]


def test_leaving_on_an_exception_stops_a_busy_process_at_once(tmp_path: Path) -> None:
    """Ctrl-C while a mode's process is busy: it is stopped with SIGTERM, which it leaves
    through its `finally` blocks, within seconds."""
    started = time.perf_counter()
    processes = ModeProcesses(Settings(data_dir=tmp_path), ["rag", "crag"], serve=_fake_serve)
    with pytest.raises(KeyboardInterrupt), processes:
        processes.ask("q", "rag")
        child = processes._children["rag"]
        child.conn.send("slow")  # busy for a minute
        raise KeyboardInterrupt
    child.process.wait(timeout=5)
    assert not child.alive() and time.perf_counter() - started < 10
    assert (tmp_path / "rag.closed").read_text() == "yes"


def test_an_error_that_cannot_be_pickled_keeps_its_class_name() -> None:
    class Local(CragError):  # a local class cannot be pickled
        pass

    sent = _portable(Local("no key"))
    assert type(sent) is CragError and str(sent) == "Local: no key"
    timeout = _portable(LLMTimeoutError("slow", model="m"))
    assert type(timeout) is LLMTimeoutError and str(timeout) == str(
        LLMTimeoutError("slow", model="m")
    )
