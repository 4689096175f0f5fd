"""Where `bench.scale` keeps its stores: a temporary folder, or `--keep DIR` so that building
(which may run under load) and measuring (which needs an idle machine) are separate runs.

DIR holds one data dir per backend (`DIR/embedded`, `DIR/postgresql`), the PostgreSQL cluster
(`DIR/pg`, started again by later runs; without `--url`) and `DIR/scale.json`, the corpus the
stores were grown from: each corpus size draws other generated chunks, so a kept store only
grows from its own corpus.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["corpus_total", "open_stores"]

STAMP = "scale.json"


def corpus_total(keep: Path | None, largest: int, questions: int, seed: int) -> int:
    """The corpus size to build: `largest`, or the one a kept DIR was grown from (which must
    cover `largest`); records it in a new DIR."""
    if keep is None:
        return largest
    stamp = keep / STAMP
    want = {"total": largest, "questions": questions, "seed": seed}
    if not stamp.exists():
        if not largest:
            raise SystemExit(f"--measure-only: nothing kept in {keep} (no {STAMP})")
        keep.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps(want) + "\n")
        return largest
    have = json.loads(stamp.read_text())
    if (have["questions"], have["seed"]) != (questions, seed) or largest > have["total"]:
        raise SystemExit(f"{keep} holds stores grown from the corpus {have}, not {want}")
    return int(have["total"])


@contextlib.contextmanager
def open_stores(args: Any) -> Iterator[dict[str, Any]]:
    """Settings of each backend in `args.backends`, kept in `args.keep` or a temporary folder;
    a local PostgreSQL started for the run when no `--url` is given."""
    from crag.config import load_settings

    with contextlib.ExitStack() as stack:
        url = args.url
        if not url and "postgresql" in args.backends:
            from tests.servers.postgres import postgres_server

            data = args.keep / "pg" if args.keep else None
            url = stack.enter_context(
                postgres_server(options="-c shared_buffers=1GB", data_dir=data)
            )
        base = args.keep or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="crag-bench-scale-"))
        )
        settings = {}
        for name in args.backends:
            extra: dict[str, Any] = {"index": {"url": url}} if name == "postgresql" else {}
            settings[name] = load_settings(data_dir=base / name, collection="scale", **extra)
        yield settings
