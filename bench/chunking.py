"""Ingestion time against input shape: prose vs text without sentence breaks (issue 21, F2).

    python -m bench.chunking [--mb 20] [--embed]

Generates `--mb` MB of each shape from one random vocabulary (seeded): prose (sentences and
paragraphs), one line of words, one word a line, no whitespace at all. Times loading and
chunking each (`load_file` + `Chunker.split_all`); with `--embed`, also a full `Ingestor` run
into a fresh collection (embedding included), which is what an upload costs. The target: every
shape within 3x the time of prose. Writes bench/results/chunking.json.
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
    args = parser.parse_args()
    n = int(args.mb * 1e6)
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in shapes(n).items():
            path = Path(tmp) / (name.replace(" ", "_") + ".txt")
            path.write_text(text)
            started = time.perf_counter()
            chunks = Chunker().split_all(load_file(path).documents)
            chunk_s = time.perf_counter() - started
            result = {"bytes": path.stat().st_size, "chunks": len(chunks), "chunk_s": chunk_s}
            if args.embed:
                result["ingest_s"] = _ingest(path, Path(tmp) / "data" / name.replace(" ", "_"))
            results[name] = result
    prose = results["prose"]
    for name, r in results.items():
        row = [name, f"{r['bytes'] / 1e6:.1f}", r["chunks"], f"{r['chunk_s']:.2f}"]
        row.append(f"x{r['chunk_s'] / prose['chunk_s']:.2f}")
        if args.embed:
            row += [f"{r['ingest_s']:.1f}", f"x{r['ingest_s'] / prose['ingest_s']:.2f}"]
        rows.append(row)
    columns = ["shape", "MB", "chunks", "load+chunk s", "vs prose"]
    if args.embed:
        columns += ["ingest s", "vs prose"]
    print_table("Ingestion time by input shape", columns, rows)
    write_results("chunking", {"machine": machine_info(), "mb": args.mb, "results": results})


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
