"""Questions of one's own over a folder of real documents, asked as `crag ask` asks them.

    python -m bench.own_docs bench/data/own_docs/valgrind.tsv --docs /tmp/vg [--data D] [--out P]

A question file is tab-separated, one `question<TAB>expected` per line; `ABSENT` as the expected
answer marks a question whose answer is in none of the documents (it should be refused). Lines
starting with `#` are comments: each file's first ones say how its documents were gathered on
the machine that wrote it (none of them ships with the repository).

The folder is ingested once into a fresh collection under `--data` (a temporary directory by
default), then every question goes through `Pipeline.ask` at the configured settings. Each
answer is printed with its verdict and the documents it cites, and marked `match` where the
expected text stands in it (case and spacing ignored) or, for ABSENT, where it was refused: a
first reading only — an answer in other words ("900,000 bytes" for "900k"), or a right answer
citing the wrong document, is judged by hand, as in the benchmarks document.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, write_results

ABSENT = "ABSENT"


def read_questions(path: Path) -> list[tuple[str, str]]:
    """(question, expected) pairs of a question file; comments and blank lines skipped."""
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        question, sep, expected = line.partition("\t")
        if not sep or not question.strip() or not expected.strip():
            raise SystemExit(f"{path}:{n}: expected 'question<TAB>expected answer'")
        pairs.append((question.strip(), expected.strip()))
    return pairs


def matches(expected: str, answer: str, refused: bool) -> bool:
    """The first reading: the expected text in the answer, or a refusal where it is absent."""
    if expected == ABSENT:
        return refused
    squeeze = lambda s: " ".join(s.lower().split())  # noqa: E731
    return not refused and squeeze(expected) in squeeze(answer)


def run(questions: Path, docs: Path, data: Path) -> list[dict[str, Any]]:
    from crag.config import load_settings
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.pipeline import build_pipeline

    pairs = read_questions(questions)
    settings = load_settings(data_dir=data, collection="own-docs")
    index = Index.open(settings)
    started = time.perf_counter()
    Ingestor(index, settings.ingest).ingest([docs])
    console.print(f"ingested {docs} in {time.perf_counter() - started:.0f} s")
    pipeline = build_pipeline(settings, index)
    rows = []
    for question, expected in pairs:
        started = time.perf_counter()
        answer = pipeline.ask(question)
        row = {
            "question": question,
            "expected": expected,
            "answer": answer.text,
            "refused": answer.refused,
            "verdict": str(answer.trace.verdict),
            "match": matches(expected, answer.text, answer.refused),
            # the documents the answer cites: a right answer may cite the wrong page
            "cited": sorted({Path(c.source).name for c in answer.citations}),
            "seconds": round(time.perf_counter() - started, 1),
        }
        rows.append(row)
        mark = "match" if row["match"] else "-----"
        console.print(
            f"{mark} {row['verdict']:<9} {question}\n      {answer.text[:160]}"
            f"\n      cites {', '.join(row['cited']) or '-'}",
            markup=False,
        )
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, int]:
    """The counts of a run: answerable questions matched and refused, absent ones answered."""
    answerable = [r for r in rows if r["expected"] != ABSENT]
    absent = [r for r in rows if r["expected"] == ABSENT]
    return {
        "answerable": len(answerable),
        "matched": sum(r["match"] for r in answerable),
        "refused": sum(r["refused"] for r in answerable),
        "absent": len(absent),
        "absent_answered": sum(not r["refused"] for r in absent),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--docs", type=Path, required=True, help="folder (or file) to ingest")
    parser.add_argument("--data", type=Path, help="data directory (default: a temporary one)")
    parser.add_argument("--out", type=Path, help="results JSON (default: bench/results/)")
    args = parser.parse_args()
    if args.data is None:
        with tempfile.TemporaryDirectory() as tmp:
            rows = run(args.questions, args.docs, Path(tmp))
    else:
        rows = run(args.questions, args.docs, args.data)
    counts = summary(rows)
    console.print(counts)
    result = {"machine": machine_info(), "questions": str(args.questions), "summary": counts}
    console.print(f"written {write_results(args.out or 'own_docs', {**result, 'rows': rows})}")


if __name__ == "__main__":
    main()
