"""Every question set of `bench/data/own_docs` asked again: did a change break an earlier fix?

    python -m bench.own_docs_sweep [--sets valgrind,vim] [--folder aws=/tmp/aws/docs]
                                   [--before OLD.json] [--out P]

Each set was written for one kind of document (man pages, Info manuals, PDFs typed by TeX,
Sphinx HTML …) and the fixes of that stop were measured on it; later changes were measured on
SQuAD and on the sets of their own stop. This asks every set at the current code, each in a
fresh collection as `bench.own_docs` asks one, and with `--before` (an earlier sweep's JSON)
prints each question whose outcome or answer changed.

The documents are not in the repository: each question file's first line says how they were
gathered on the machine that wrote it, and the folder is the first `/tmp/…` path there (or the
one of the set it names: "as valgrind.tsv"); `--folder SET=DIR` overrides it. A set whose
folder is missing is skipped and named, never gathered by this script (those lines are
instructions for a person: they download packages).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, write_results
from bench.own_docs import run, summary

SETS = Path(__file__).resolve().parent / "data" / "own_docs"
_TMP_PATH = re.compile(r"/tmp/[\w.-]+")
_AS_SET = re.compile(r"\bas ([\w-]+)\.tsv\b")


def folder_of(path: Path, sets: Path = SETS) -> Path | None:
    """The documents' folder a question file's `# docs:` line names, else None."""
    head = next(
        (line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#")),
        "",
    )
    if not head.startswith("# docs:"):
        return None
    if (other := _AS_SET.search(head)) and (sets / f"{other[1]}.tsv") != path:
        return folder_of(sets / f"{other[1]}.tsv", sets)
    found = _TMP_PATH.search(head)
    return Path(found[0]) if found else None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One line per question of a set asked in both sweeps whose match or answer changed."""
    old = {r["question"]: r for r in before.get("rows", [])}
    lines = []
    for row in after["rows"]:
        prev = old.get(row["question"])
        if prev is None or (prev["match"], prev["answer"]) == (row["match"], row["answer"]):
            continue
        mark = "~" if prev["match"] == row["match"] else ("+" if row["match"] else "-")
        lines.append(
            f"{mark} {row['question']} [{row['expected']}]\n"
            f"    before: {prev['answer'][:140]}\n    now:    {row['answer'][:140]}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", help="comma-separated set names (default: every set)")
    parser.add_argument("--folder", action="append", default=[], help="SET=DIR override")
    parser.add_argument("--before", type=Path, help="an earlier sweep's JSON, to compare with")
    parser.add_argument("--out", type=Path, help="results JSON (default: bench/results/)")
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.folder)
    names = args.sets.split(",") if args.sets else sorted(p.stem for p in SETS.glob("*.tsv"))
    before = json.loads(args.before.read_text(encoding="utf-8"))["sets"] if args.before else {}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # one models folder for every set: the packaged GGUFs are assembled once, and the
        # llama.cpp server (shared per model file) stays up from one set to the next
        os.environ.setdefault("CRAG_LLM__MODELS_DIR", str(Path(tmp) / "models"))
        for name in names:
            path = SETS / f"{name}.tsv"
            folder = Path(overrides[name]) if name in overrides else folder_of(path)
            if folder is None or not folder.exists():
                console.print(f"[yellow]skipped {name}: no documents at {folder}[/]")
                continue
            console.print(f"[bold]{name}[/] ({folder})")
            rows = run(path, folder, Path(tmp) / name)  # a fresh collection per set
            results[name] = {"folder": str(folder), "summary": summary(rows), "rows": rows}
    console.print()
    for name, result in results.items():
        s = result["summary"]
        was = before.get(name, {}).get("summary")
        shown = f"{s['matched']}/{s['answerable']} matched, {s['absent_answered']}/{s['absent']}"
        console.print(
            f"{name:<22} {shown} absent answered" + (f"   (before: {was})" if was else "")
        )
        for line in changes(before.get(name, {}), result) if name in before else []:
            console.print(f"  {line}", markup=False)
    out = {"machine": machine_info(), "sets": results}
    console.print(f"written {write_results(args.out or 'own_docs_sweep', out)}")


if __name__ == "__main__":
    main()
