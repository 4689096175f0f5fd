"""What a finished `crag eval` run would have answered with its refusal rules changed.

    python -m bench.replay RUN_DIR [RUN_DIR ...] [--lower 0.15] [--corroborate] [--verify-cut 0.75]

These rules only turn answers into refusals, and every model call before them is the same
(temperature 0, same prompts), so their effect can be read off a run's traces instead of
asking every question again:

- `--lower X`: the evaluator's lower threshold raised to X. A question whose best evaluation
  scored below X gets the verdict INCORRECT, which without web search is a refusal. Only
  valid for runs without web search (with it, INCORRECT searches the web instead); such
  runs are refused.
- `--corroborate`: `generate.corroborate` on. An answer given under a verdict other than
  CORRECT whose only candidate came from the reading of all sources (the best source read
  alone gave none) becomes a refusal.
- `--verify-cut X`: `generate.verify_cut` set to X. Traces that hold their verifications
  as records (`verifications`, since 74bbf58) are replayed both ways by `crag.eval.cuts`
  (what `crag eval`'s report shows): the first checked candidate that reaches X answers.
  Older traces only noted them ("verified … P(yes) p"): the cut can only be raised, an
  answer whose verification scored below X becomes a refusal. Not exact: a real run then
  checks the next candidate, if there is one, which may answer; so this is an upper bound
  on the refusals the cut adds. The note rounds P(yes) to two decimals: an answer noted
  exactly at the cut may fall either side of it (one did in 40 held-out questions: noted
  0.75, refused at 0.75).

Runs made with the rule already on are read as they are (nothing left to change). Checked
against a real run: a 60-question tuning run replayed at `--lower 0.15` gave the same outcome
for every question as the run made with `CRAG_EVALUATE__LOWER=0.15`.

Choose rules on `--tuning-part` runs; replaying the runs you report shows what a choice does
to them, it does not choose. Writes bench/results/replay.json.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import console, print_table, write_results
from crag.eval.cuts import outcome_at
from crag.eval.metrics import contains_answer
from crag.eval.summary import expects_answer

# one candidate in the generator's "candidates: …" note, for traces stored before the trace
# held them as records (`candidates`, `read_alone`)
_CANDIDATE = re.compile(
    r"""(?:'(?:[^']|'(?! \())*'|"[^"]*") \((all|alone \[\d+\]), tied [0-9.]+ in \[\d+\]\)"""
)  # a short answer is shown as Python's repr: in single quotes, or double when it holds one


def outcome(r: dict[str, Any], web: bool) -> str:
    """right / wrong / refused for questions crag should answer (`expects_answer`, as the
    eval summary decides), near_answered / near_refused for the others."""
    if not expects_answer(r, web):
        return "near_refused" if r["refused"] else "near_answered"
    if r["refused"]:
        return "refused"
    right = contains_answer(r["answer"], r["answers"], r.get("language") or "en")
    return "right" if right else "wrong"


def uncorroborated(r: dict[str, Any]) -> bool:
    """An answer under a verdict other than CORRECT that only the reading of all sources gave,
    some source having been read alone (and declined)."""
    trace = r["trace"]
    if r["refused"] or r["verdict"] == "correct" or len(trace["reranked"]) < 2:
        return False
    if "candidates" in trace:  # traces since the candidates were typed records
        readings = [c["reading"] for c in trace["candidates"]]
        return bool(readings and trace["read_alone"]) and all(how == "all" for how in readings)
    notes = [n for n in trace["notes"] if n.startswith("candidates: ")]
    readings = _CANDIDATE.findall(notes[0]) if notes else []
    return bool(readings) and all(how == "all" for how in readings)


_VERIFIED = re.compile(r"^verified .* P\(yes\) ([0-9.]+)$")


def verified(r: dict[str, Any]) -> float | None:
    """The P(yes) of the answer's verification (the last one noted), None when not verified."""
    found = [m.group(1) for n in r["trace"]["notes"] if (m := _VERIFIED.match(n))]
    return float(found[-1]) if found else None


def replay(
    r: dict[str, Any],
    web: bool,
    lower: float | None,
    corroborate: bool,
    verify_cut: float | None = None,
) -> str:
    kind = outcome(r, web)
    refused = "near_refused" if kind.startswith("near") else "refused"
    if lower is not None and not r["refused"]:
        best = max((e["score"] for e in r["trace"]["evaluations"]), default=0.0)
        if best < lower:
            return refused
    if corroborate and uncorroborated(r):
        return refused
    if verify_cut is not None and r["trace"].get("verifications"):
        got = outcome_at(r, verify_cut)
        if kind.startswith("near"):
            return "near_refused" if got == "refused" else "near_answered"
        return got
    if verify_cut is not None and not r["refused"]:
        p = verified(r)
        if p is not None and p < verify_cut:
            return refused
    return kind


def figures(counts: Counter[str]) -> list[str]:
    answerable = counts["right"] + counts["wrong"] + counts["refused"]
    absent = counts["near_answered"] + counts["near_refused"]

    def pct(n: int, d: int) -> str:
        return f"{100 * n / d:.1f} %" if d else "–"

    return [
        str(answerable),
        pct(counts["right"], answerable),
        pct(counts["wrong"], answerable),
        pct(counts["refused"], answerable),
        str(absent),
        pct(counts["near_answered"], absent),
    ]


def _web(run: Path) -> str:
    """The run's web search provider ("none" without), from its fingerprint."""
    fingerprint = json.loads((run / "run.json").read_text())["fingerprint"]
    return str(fingerprint.get("web", "none"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--lower", type=float, default=None)
    parser.add_argument("--corroborate", action="store_true")
    parser.add_argument("--verify-cut", type=float, default=None)
    args = parser.parse_args()
    table, out = [], {}
    for run in args.runs:
        web = _web(run) != "none"
        if args.lower is not None and web:
            raise SystemExit(f"{run}: made with web search; --lower cannot be replayed")
        rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
        rows = [r for r in rows if r["mode"] != "rag" and not r.get("error")]
        before = Counter(outcome(r, web) for r in rows)
        after = Counter(replay(r, web, args.lower, args.corroborate, args.verify_cut) for r in rows)
        table.append([run.name, "as run", *figures(before)])
        table.append([run.name, "replayed", *figures(after)])
        out[str(run)] = {"before": dict(before), "after": dict(after)}
    print_table(
        f"Replayed: lower {args.lower}, corroborate {args.corroborate}, "
        f"verify cut {args.verify_cut}",
        ["run", "", "answerable", "right", "wrong", "over-refusal", "absent", "answered"],
        table,
    )
    path = write_results(
        "replay",
        {
            "lower": args.lower,
            "corroborate": args.corroborate,
            "verify_cut": args.verify_cut,
            "runs": out,
        },
    )
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
