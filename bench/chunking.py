"""Ingestion time against input shape: prose vs text without sentence breaks (issue 21, F2).

    python -m bench.chunking [--mb 20] [--embed] [--series 0.1,0.2,0.4,0.8]

Generates `--mb` MB of each shape from one random vocabulary (seeded): prose (sentences and
paragraphs), one line of words, one word a line, no whitespace at all. Times loading and
chunking each (`load_file` + `Chunker.split_all`); with `--embed`, also a full `Ingestor` run
into a fresh collection (embedding included), which is what an upload costs. The target: every
shape within 3x the time of prose. `--series` times one line of words at each size given (MB):
the issue measured 0.27/0.67/2.75/11.1 s at 0.1/0.2/0.4/0.8 MB before chunking was bounded, so
this shows the growth is linear now.

Both wall time and this process's CPU time are reported: the machine is shared, and under load
wall time measures the neighbours as much as the splitter. Writes bench/results/chunking.json.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from bench.common import machine_info, print_table, write_results
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_file


def shapes(n: int, seed: int = 1) -> dict[str, str]:
    rng = random.Random(seed)
    vocab = [
        "".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 9))) for _ in range(5000)
    ]
    words = [rng.choice(vocab) for _ in range(n // 5)]
    parts: list[str] = []
    size = 0
    while size < n:
        sentence = " ".join(rng.choice(vocab) for _ in range(12)).capitalize() + ". "
        parts.append(sentence + ("\n\n" if rng.random() < 0.1 else ""))
        size += len(parts[-1])
    return {
        "prose": "".join(parts)[:n],
        "one line of words": " ".join(words)[:n],
        "one word a line": "\n".join(words)[:n],
        "no whitespace": "".join(words)[:n],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--embed", action="store_true", help="also a full Ingestor run")
    parser.add_argument("--series", default="", help="MB sizes of one line of words, e.g. 0.1,0.8")
    args = parser.parse_args()
    n = int(args.mb * 1e6)
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in shapes(n).items():
            path = Path(tmp) / (name.replace(" ", "_") + ".txt")
            path.write_text(text)
            result = _chunk(path)
            if args.embed:
                result["ingest_s"] = _ingest(path, Path(tmp) / "data" / name.replace(" ", "_"))
            results[name] = result
    prose = results["prose"]
    for name, r in results.items():
        row = [name, f"{r['bytes'] / 1e6:.1f}", r["chunks"], f"{r['chunk_s']:.2f}"]
        row += [f"{r['cpu_s']:.2f}", f"x{r['cpu_s'] / prose['cpu_s']:.2f}"]
        if args.embed:
            row += [f"{r['ingest_s']:.1f}", f"x{r['ingest_s'] / prose['ingest_s']:.2f}"]
        rows.append(row)
    columns = ["shape", "MB", "chunks", "load+chunk s", "CPU s", "CPU vs prose"]
    if args.embed:
        columns += ["ingest s", "vs prose"]
    print_table("Ingestion time by input shape", columns, rows)
    series = _series(args.series) if args.series else None
    write_results(
        "chunking",
        {"machine": machine_info(), "mb": args.mb, "results": results, "series": series},
    )


def _chunk(path: Path) -> dict[str, float | int]:
    started, cpu = time.perf_counter(), time.process_time()
    chunks = Chunker().split_all(load_file(path).documents)
    return {
        "bytes": path.stat().st_size,
        "chunks": len(chunks),
        "chunk_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
    }


def _series(sizes: str) -> list[dict[str, float | int]]:
    """One line of words at each size (MB): linear growth means the time per MB stays flat."""
    out, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for mb in (float(x) for x in sizes.split(",")):
            path = Path(tmp) / f"line-{mb}.txt"
            path.write_text(shapes(int(mb * 1e6))["one line of words"])
            r = _chunk(path)
            out.append({"mb": mb, **r})
            rows.append([f"{mb:g}", r["chunks"], f"{r['chunk_s']:.3f}", f"{r['cpu_s']:.3f}"])
            rows[-1].append(f"{r['cpu_s'] / mb:.3f}")
    columns = ["MB", "chunks", "load+chunk s", "CPU s", "CPU s per MB"]
    print_table("One line of words by size", columns, rows)
    return out


def _ingest(path: Path, data_dir: Path) -> float:
    from crag.config import load_settings
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    settings = load_settings(data_dir=data_dir, collection="bench")
    index = Index.open(settings)
    try:
        report = Ingestor(index, settings.ingest).ingest([path])
        assert report.ok, report.failed
        return report.seconds
    finally:
        index.close()


if __name__ == "__main__":
    main()
