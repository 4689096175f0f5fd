"""Jobs that are never silently lost (issue 21, F5/F6), without embedding anything: persisted
before the 202, resumed or failed with a reason after a restart, orphaned spool files removed,
cancellation of a queued job, and the writer lock waited for with a bound."""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time

import pytest

from crag.config import load_settings
from crag.errors import CragError
from crag.index.store import Index
from crag.server.jobs import Job, JobRunner, Upload
from crag.server.uploads import spool_path


@pytest.fixture
def index(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", collection="jobs")
    idx = Index.open(settings)
    yield idx
    idx.close()


def _runner(index, tmp_path, **kw) -> JobRunner:
    return JobRunner(
        index,
        load_settings().ingest,
        jobs_dir=tmp_path / "jobs",
        spool_dir=tmp_path / "spool",
        **kw,
    )


def _job(runner: JobRunner, tmp_path, name: str) -> Job:
    path = spool_path(tmp_path / "spool", name)
    path.write_text(f"{name} says hello.")
    return Job(runner.new_id(), "ingest", [Upload(name, path, name)])


def test_a_job_is_on_disk_before_submit_returns_and_resumes_after_a_restart(
    index, tmp_path
) -> None:
    first = _runner(index, tmp_path)  # worker never started: as if killed right after the 202
    kept = first.submit(_job(first, tmp_path, "a.md"))
    lost = first.submit(_job(first, tmp_path, "b.md"))
    record = json.loads((tmp_path / "jobs" / f"{kept.id}.json").read_text())
    assert record["state"] == "queued" and record["uploads"][0]["source"] == "a.md"
    lost.uploads[0].path.unlink()  # its spooled file did not survive
    orphan = spool_path(tmp_path / "spool", "orphan.md")  # spooled, never became a job
    (tmp_path / "jobs" / "half.tmp").write_text("{")  # a write cut short by the crash

    second = _runner(index, tmp_path)
    resumed = second.recover()
    assert [j.id for j in resumed] == [kept.id]
    again = second.get(kept.id)
    assert again.state == "queued" and "resumed" in again.to_dict()["error"]
    gone = second.get(lost.id)
    assert gone.state == "failed" and "b.md" in gone.error and "upload again" in gone.error
    assert not orphan.exists() and kept.uploads[0].path.exists()
    assert not (tmp_path / "jobs" / "half.tmp").exists()
    assert json.loads((tmp_path / "jobs" / f"{lost.id}.json").read_text())["state"] == "failed"


def test_a_job_resumed_twice_has_a_note_not_an_error(index, tmp_path) -> None:
    """Killed again while resuming (bench/crash.py): the second start read the first one's
    note "resumed after a server restart" back as the job's error, and the job ended failed
    with every file indexed."""
    first = _runner(index, tmp_path)
    job = first.submit(_job(first, tmp_path, "twice.md"))
    _runner(index, tmp_path).recover()  # first restart: the note is saved with the job
    third = _runner(index, tmp_path)
    [again] = third.recover()  # second restart
    assert again.id == job.id and again.error == "" and again.note.startswith("resumed")
    saved = json.loads((tmp_path / "jobs" / f"{job.id}.json").read_text())
    assert saved["error"] == "" and saved["note"].startswith("resumed")
    old = {**saved, "error": "resumed after a server restart"}  # a record from before the fix
    del old["note"]
    assert Job.from_record(old).error == "" and Job.from_record(old).note.startswith("resumed")
    done = {**saved, "state": "failed", "error": "no file could be ingested"}
    assert Job.from_record(done).error == "no file could be ingested"


def test_cancelling_a_queued_job_ends_it_and_removes_its_files(index, tmp_path) -> None:
    runner = _runner(index, tmp_path)
    job = runner.submit(_job(runner, tmp_path, "c.md"))
    assert runner.cancel(job.id, "cancelled by test") is job
    assert job.state == "failed" and job.error.startswith("cancelled by test")
    assert job.done_event.is_set() and not job.uploads[0].path.exists()
    assert runner.cancel("nope") is None
    saved = json.loads((tmp_path / "jobs" / f"{job.id}.json").read_text())
    assert saved["state"] == "failed"


def test_stopping_keeps_persisted_jobs_queued_for_the_next_start(index, tmp_path) -> None:
    runner = _runner(index, tmp_path)
    job = runner.submit(_job(runner, tmp_path, "d.md"))
    runner.stop()
    assert job.state == "queued" and job.uploads[0].path.exists()
    assert [j.id for j in _runner(index, tmp_path).recover()] == [job.id]


def _hold_lock(index: Index) -> int:
    fd = os.open(index.lock_path, os.O_CREAT | os.O_RDWR, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: conflicts like another process
    return fd


def test_the_writer_lock_is_waited_for_with_a_bound(index) -> None:
    index.lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = _hold_lock(index)
    released = threading.Event()

    def release() -> None:  # the other writer finishes
        os.close(fd)
        released.set()

    try:
        started = time.monotonic()
        with (
            pytest.raises(CragError, match=r"another crag process.*waited 0.4 s"),
            index.write_lock(0.4),
        ):
            pass
        assert 0.4 <= time.monotonic() - started < 1.5
        with (
            pytest.raises(CragError, match="cancelled"),
            index.write_lock(10, cancelled=lambda: True),
        ):
            pass
        told = []
        threading.Timer(0.3, release).start()
        with index.write_lock(10, on_wait=lambda: told.append(1)):
            assert told == [1] and released.is_set()
    finally:
        if not released.wait(5):
            os.close(fd)


def test_the_worker_repairs_before_it_is_ready_and_waits_for_the_lock(index, tmp_path) -> None:
    index.lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = _hold_lock(index)
    runner = _runner(index, tmp_path, lock_wait_s=30)
    runner.start()
    try:
        time.sleep(0.5)
        assert not runner.ready.is_set() and "writer lock" in runner.repair_note
        os.close(fd)
        assert runner.ready.wait(10)
        assert runner.repair_note == "consistent"
    finally:
        runner.stop()
