"""The pieces of an ingestion job the runners share: resuming at start-up, the progress
check (cancel, time limit)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from crag.server.job import Job, JobCancelled, Upload
from crag.server.job_disk import resume_on_start
from crag.server.job_work import job_checker


def test_a_job_whose_files_remain_is_queued_again_and_one_whose_files_are_gone_fails(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("still here")
    job = Job(id="a", kind="ingest", uploads=[Upload("kept.txt", kept, "kept.txt")])
    job.state, job.started = "running", time.time()
    assert resume_on_start(job)
    assert job.state == "queued" and job.started is None and "resumed" in job.note

    gone = Job(id="b", kind="ingest", uploads=[Upload("gone.txt", tmp_path / "gone.txt", "g")])
    assert not resume_on_start(gone)
    assert gone.state == "failed" and gone.done_event.is_set()
    assert "gone.txt" in gone.error and "upload again" in gone.error


def test_the_check_raises_on_cancel_and_past_the_time_limit() -> None:
    job = Job(id="c", kind="ingest")
    job_checker(job, 60.0)()  # neither: nothing raised
    job.cancel_reason = "cancelled"
    with pytest.raises(JobCancelled, match="cancelled after 0 of 1 files"):
        job_checker(job, 60.0)()
    late = Job(id="d", kind="ingest")
    check = job_checker(late, 0.0)
    time.sleep(0.01)
    with pytest.raises(JobCancelled, match="over the time limit"):
        check()
