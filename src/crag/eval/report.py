"""Write what a run measured: `summary.json`, `report.md` (tables) and the PNG plots
(crag.eval.plots)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crag.eval.notes import near_miss_note, shared_process_note, web_failed_note
from crag.eval.plots import stages_run, write_plots
from crag.eval.summary import VERDICTS, finite

__all__ = ["render_markdown", "write_report"]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


ANSWER_COLUMNS = [
    "mode", "should answer", "accuracy", "short answer", "F1", "over-refusal", "should refuse",
    "refused", "found elsewhere", "hallucinated", "errors",
]  # fmt: skip


def _answers_rows(modes: dict[str, Any]) -> list[list[str]]:
    rows = []
    for m, s in modes.items():
        a = s["answers"]
        rows.append([
            m, str(a["n_answerable"]), _pct(a["accuracy"]), _pct(a.get("short_accuracy")),
            _pct(a["f1"]),
            _pct(a["over_refusal"]), str(a["n_unanswerable"]), _pct(a["refusal_rate"]),
            _pct(a["found_elsewhere"]), _pct(a["hallucination_rate"]), str(s["errors"]),
        ])  # fmt: skip
    return rows


RETRIEVAL_COLUMNS = [
    "mode", "n", "recall@1", "recall@5", "recall@20", "gold-bearing chunk in top 5",
    "answer kept", "answer in top 5",
]  # fmt: skip


def _retrieval_rows(modes: dict[str, Any]) -> list[list[str]]:
    rows = []
    for m, s in modes.items():
        r = s["retrieval"]
        rows.append([
            m, str(r["n"]), _pct(r["recall@1"]), _pct(r["recall@5"]), _pct(r["recall@20"]),
            _pct(r["gold_in_context"]), _pct(s["answer_kept"]["rate"]),
            str(s["answer_kept"]["n"]),
        ])  # fmt: skip
    return rows


def _evaluator_section(judged: dict[str, Any]) -> list[str]:
    confusion = [
        [m, label, *(str(e["confusion"][key][v]) for v in VERDICTS)]
        for m, e in judged.items()
        for key, label in (("gold", "yes"), ("no_gold", "no"))
    ]
    quality = [
        [
            m,
            _pct(e["accuracy"]),
            _pct(e["correct_precision"]),
            _pct(e["decisive"]),
            _pct(e.get("decisive_right")),
        ]
        for m, e in judged.items()
    ]
    return [
        "## Retrieval evaluator",
        "",
        _table(["mode", "gold-bearing chunk judged", *(v.upper() for v in VERDICTS)], confusion),
        "",
        _table(
            ["mode", "verdict accuracy", "CORRECT precision", "decisive", "decisive right"],
            quality,
        ),
        *_groups_section(judged),
    ]


def _groups_section(judged: dict[str, Any]) -> list[str]:
    """With --near-miss: verdict accuracy and decisive share for answerable and near-miss
    questions apart (a verdict should keep the first and discard the second)."""
    rows = [
        [
            m,
            group,
            str(g["n"]),
            *(_pct(g.get(k)) for k in ("accuracy", "decisive", "decisive_right")),
        ]
        for m, e in judged.items()
        for group, g in (e.get("by_group") or {}).items()
        if g
    ]
    if not rows:
        return []
    header = ["mode", "questions", "n", "verdict accuracy", "decisive", "decisive right"]
    return ["", _table(header, rows)]


def _near_miss_section(modes: dict[str, Any]) -> list[str]:
    rows = [
        [m, str(a["n_unanswerable"]), _pct(a["refusal_rate"]), _pct(a["found_elsewhere"]),
         _pct(a["hallucination_rate"])]
        for m, s in modes.items() if (a := s.get("near_miss"))
    ]  # fmt: skip
    if not rows:
        return []
    header = ["mode", "near-miss questions", "refused", "found elsewhere", "hallucinated"]
    return [
        "## Near-miss questions (gold passage withheld, topic indexed)",
        "",
        _table(header, rows),
        "",
    ]


def _cuts_section(modes: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for m, s in modes.items():
        if not (cuts := s.get("verify_cuts")):
            continue
        ran = cuts["run_cut"]
        rows = [
            [f"{p['cut']:.2f}{' ←' if p['cut'] in ran else ''}", str(p["right"]), str(p["wrong"]),
             str(p["refused"]), f"{p['should_refuse_answered']} of {p['should_refuse']}"]
            for p in cuts["points"]
        ]  # fmt: skip
        header = ["cut", "right", "wrong", "refused", "should-refuse answered"]
        out += [
            f"## The verification cut, replayed ({m})",
            "",
            f"{cuts['verified']} questions had an answer verified; ← the run's cut. Replayed "
            "from the traces: a cut above the run's answer refuses it (the candidates after "
            "it were never checked); another candidate's answer is judged by its short "
            "answer (crag.eval.cuts).",
            "",
            _table(header, rows),
            "",
        ]
    return out


QS = ("p50_ms", "p95_ms")


def _latency_rows(modes: dict[str, Any]) -> list[list[str]]:
    stages = [*stages_run(modes), "total"]
    return [
        [st, *(_ms(modes[m]["latency"].get(st, {}).get(q)) for m in modes for q in QS)]
        for st in stages
    ]


def _calls_section(modes: dict[str, Any]) -> str:
    roles = sorted({r for s in modes.values() for r in s["calls"]["by_role"]})
    rows = []
    for m, s in modes.items():
        per, by_role = s["calls"]["per_question"], s["calls"]["by_role"]
        rows.append(
            [m, f"{per['calls']:.1f}", f"{per['prompt_tokens']:.0f}"]
            + [f"{per['completion_tokens']:.0f}"]
            + [f"{by_role.get(r, {}).get('calls', 0):.1f}" for r in roles]
        )
    header = ["mode", "calls", "prompt tokens", "completion tokens"]
    return _table(header + [f"{r} calls" for r in roles], rows)


def _parts_rows(parted: dict[str, Any]) -> list[list[str]]:
    rows = []
    for m, by_part in parted.items():
        for p, a in by_part.items():
            rows.append([
                m, p, str(a["n_answerable"]), _pct(a["accuracy"]), str(a["n_unanswerable"]),
                _pct(a["refusal_rate"]), _pct(a["found_elsewhere"]), _pct(a["hallucination_rate"]),
            ])  # fmt: skip
    return rows


def render_markdown(summary: dict[str, Any]) -> str:
    meta, modes = summary["run"], summary["modes"]
    out = [
        f"# crag eval: {meta['dataset_name']}",
        "",
        f"{meta['questions']} questions ({meta['language']}), modes {', '.join(modes)}; "
        f"collection `{meta['collection']}`, embedding `{meta['embedding']}`, keyword "
        f"`{meta['keyword_language']}`; evaluator {meta['evaluator']}, generator "
        f"`{meta['generator']}`, thresholds upper {meta['thresholds']['upper']} / lower "
        f"{meta['thresholds']['lower']}; web search `{meta['web']}`. "
        f"Machine: {meta['machine']}." + near_miss_note(meta),
        "",
        *web_failed_note(modes),
        "## Answers",
        "",
        _table(ANSWER_COLUMNS, _answers_rows(modes)),
        "",
        "## Retrieval (gold passage in the index)",
        "",
        _table(
            RETRIEVAL_COLUMNS,
            _retrieval_rows(modes),
        ),
        "",
    ]
    out += _near_miss_section(modes)
    out += _cuts_section(modes)
    judged = {m: s["evaluator"] for m, s in modes.items() if s["evaluator"]}
    if judged:
        out += [*_evaluator_section(judged), ""]
    out += [
        "## Latency (ms)",
        "",
        _table(
            ["stage"] + [f"{m} {q}" for m in modes for q in ("p50", "p95")],
            _latency_rows(modes),
        ),
        "",
        *shared_process_note(modes, meta),
        "## Model calls per question",
        "",
        _calls_section(modes),
        "",
    ]
    parted = {m: s["by_part"] for m, s in modes.items() if s.get("by_part")}
    if parted:
        header = ["mode", "part", "should answer", "accuracy", "should refuse", "refused",
                  "found elsewhere", "hallucinated"]  # fmt: skip
        out += ["## By part of the split corpus", "", _table(header, _parts_rows(parted)), ""]
    out += ["## Plots", ""]
    out += [f"![{k}]({v})" for k, v in summary.get("plots", {}).items()]
    out += [
        "",
        "Definitions: accuracy = a gold answer occurs in the (not refused) answer after "
        "SQuAD-style normalisation (crag.eval.metrics); short answer = the same, in the "
        "short answer alone (before its first citation); every figure is defined in "
        "crag.eval.summary and the README's `crag eval` section.",
        "",
    ]
    return "\n".join(out)


def write_report(summary: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """summary.json, the PNGs and report.md under `out_dir`; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = {**summary, "plots": write_plots(summary, out_dir)}
    paths = {"summary": out_dir / "summary.json", "report": out_dir / "report.md"}
    paths["summary"].write_text(
        json.dumps(finite(summary), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    paths["report"].write_text(render_markdown(summary), encoding="utf-8")
    paths.update({k: out_dir / v for k, v in summary["plots"].items()})
    return paths
