"""The ingestion's records: a report is ok until a file fails; NoProgress is a progress."""

from __future__ import annotations

from crag.ingest.report import IngestProgress, IngestReport, NoProgress


def test_report_is_ok_until_a_file_fails() -> None:
    report = IngestReport(added=["a.md"], ignored=[("b.bin", "a type crag does not read")])
    assert report.ok
    report.failed.append(("c.pdf", "encrypted"))
    assert not report.ok


def test_no_progress_takes_every_call() -> None:
    progress: IngestProgress = NoProgress()
    progress.files(2)
    progress.file_done("a.md", "added")
    progress.chunks_planned(3)
    progress.chunks_done(3)
