"""Write what a run measured: `summary.json`, `report.md` (tables) and PNG plots.

Plots are drawn by matplotlib with the Agg backend (no display needed): accuracy by mode,
latency by stage (stacked mean ms per mode) and the evaluator's verdicts split by whether a
gold-bearing chunk was judged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crag.eval.summary import STAGES, VERDICTS, finite

__all__ = ["render_markdown", "write_plots", "write_report"]

PLOTS = {
    "accuracy": "accuracy_by_mode.png",
    "latency": "latency_by_stage.png",
    "verdicts": "verdict_distribution.png",
}


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


ANSWER_COLUMNS = [
    "mode", "should answer", "accuracy", "F1", "over-refusal", "should refuse", "refused",
    "found elsewhere", "hallucinated", "errors",
]  # fmt: skip


def _answers_rows(modes: dict[str, Any]) -> list[list[str]]:
    rows = []
    for m, s in modes.items():
        a = s["answers"]
        rows.append([
            m, str(a["n_answerable"]), _pct(a["accuracy"]), _pct(a["f1"]),
            _pct(a["over_refusal"]), str(a["n_unanswerable"]), _pct(a["refusal_rate"]),
            _pct(a["found_elsewhere"]), _pct(a["hallucination_rate"]), str(s["errors"]),
        ])  # fmt: skip
    return rows


def _retrieval_rows(modes: dict[str, Any]) -> list[list[str]]:
    rows = []
    for m, s in modes.items():
        r = s["retrieval"]
        rows.append([
            m, str(r["n"]), _pct(r["recall@1"]), _pct(r["recall@5"]), _pct(r["recall@20"]),
            _pct(r["gold_in_context"]),
        ])  # fmt: skip
    return rows


def _evaluator_section(judged: dict[str, Any]) -> list[str]:
    confusion = [
        [m, label, *(str(e["confusion"][key][v]) for v in VERDICTS)]
        for m, e in judged.items()
        for key, label in (("gold", "yes"), ("no_gold", "no"))
    ]
    quality = [
        [m, _pct(e["accuracy"]), _pct(e["correct_precision"]), _pct(e["decisive"])]
        for m, e in judged.items()
    ]
    return [
        "## Retrieval evaluator",
        "",
        _table(["mode", "gold-bearing chunk judged", *(v.upper() for v in VERDICTS)], confusion),
        "",
        _table(["mode", "verdict accuracy", "CORRECT precision", "decisive"], quality),
    ]


QS = ("p50_ms", "p95_ms")


def _stages(modes: dict[str, Any]) -> list[str]:
    """Stages any mode ran, in pipeline order (unknown ones after), without the total."""
    seen = {st for s in modes.values() for st in s["latency"]} - {"total"}
    return [st for st in STAGES if st in seen] + sorted(seen - set(STAGES))


def _latency_rows(modes: dict[str, Any]) -> list[list[str]]:
    stages = [*_stages(modes), "total"]
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
        f"Machine: {meta['machine']}.",
        "",
        "## Answers",
        "",
        _table(ANSWER_COLUMNS, _answers_rows(modes)),
        "",
        "## Retrieval (gold passage in the index)",
        "",
        _table(
            ["mode", "n", "recall@1", "recall@5", "recall@20", "gold-bearing chunk in top 5"],
            _retrieval_rows(modes),
        ),
        "",
    ]
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
        "SQuAD-style normalisation (crag.eval.metrics); every figure is defined in "
        "crag.eval.summary and the README's `crag eval` section.",
        "",
    ]
    return "\n".join(out)


def write_plots(summary: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """The three PNGs; returns {kind: file name} for the ones drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = summary["modes"]
    names = list(modes)
    colors = plt.get_cmap("tab10").colors
    drawn: dict[str, str] = {}
    title = f"{summary['run']['dataset_name']} · {summary['run']['questions']} questions"

    # accuracy by mode: grouped bars of the answer figures that exist for this dataset
    metrics = [
        ("accuracy", "accuracy"), ("f1", "token F1"), ("over_refusal", "refused"),
        ("refusal_rate", "refused"), ("found_elsewhere", "found\nelsewhere"),
        ("hallucination_rate", "hallucinated"),
    ]  # fmt: skip
    metrics = [(k, lab) for k, lab in metrics if any(modes[m]["answers"][k] is not None
                                                     for m in names)]  # fmt: skip
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(metrics) * max(1, len(names)) / 2), 4.2))
    width = 0.8 / max(1, len(names))
    for i, m in enumerate(names):
        vals = [100 * (modes[m]["answers"][k] or 0) for k, _ in metrics]
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(metrics))]
        bars = ax.bar(xs, vals, width, label=m, color=colors[i % 10])
        ax.bar_label(bars, fmt="%.0f", fontsize=8, padding=2)
    ax.set_xticks(range(len(metrics)), [lab for _, lab in metrics])
    answer_keys = {"accuracy", "f1", "over_refusal"}
    n_answer = sum(k in answer_keys for k, _ in metrics)
    if 0 < n_answer < len(metrics):
        ax.axvline(n_answer - 0.5, color="lightgray", linewidth=1)
    for label, keys in (("questions that should be answered", answer_keys), (
        "questions that should be refused", {k for k, _ in metrics} - answer_keys)):  # fmt: skip
        xs = [j for j, (k, _) in enumerate(metrics) if k in keys]
        if xs:
            ax.annotate(
                label, (sum(xs) / len(xs), 0), xycoords=("data", "axes fraction"),
                xytext=(0, -34), textcoords="offset points", ha="center", va="top",
                fontsize=9, color="dimgray",
            )  # fmt: skip
    ax.set_ylabel("% of questions")
    ax.set_ylim(0, 110)
    ax.set_title(f"Answers by mode\n{title}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / PLOTS["accuracy"], dpi=110)
    plt.close(fig)
    drawn["accuracy"] = PLOTS["accuracy"]

    # latency: one stacked bar per mode, mean seconds per stage
    stages = _stages(modes)
    fig, ax = plt.subplots(figsize=(max(5, 1.8 * len(names) + 3), 4.2))
    bottoms = [0.0] * len(names)
    for j, st in enumerate(stages):
        vals = [modes[m]["latency"].get(st, {}).get("mean_ms", 0.0) / 1000 for m in names]
        ax.bar(
            names,
            vals,
            0.55,
            bottom=bottoms,
            label=st,
            color=colors[(STAGES.index(st) if st in STAGES else j) % 10],
        )
        bottoms = [b + v for b, v in zip(bottoms, vals, strict=True)]
    for i, m in enumerate(names):
        tot = modes[m]["latency"].get("total")
        if tot:
            ax.annotate(
                f"p50 {tot['p50_ms'] / 1000:.1f}s\np95 {tot['p95_ms'] / 1000:.1f}s",
                (i, bottoms[i]), ha="center", va="bottom", fontsize=8,
            )  # fmt: skip
    ax.set_ylabel("mean seconds per question")
    ax.set_ylim(0, max([*bottoms, 0.001]) * 1.3)
    ax.set_title(f"Latency by stage\n{title}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="stage")
    fig.tight_layout()
    fig.savefig(out_dir / PLOTS["latency"], dpi=110)
    plt.close(fig)
    drawn["latency"] = PLOTS["latency"]

    judged = [m for m in names if modes[m]["evaluator"]]
    if judged:
        kinds = (
            ("gold", "gold-bearing chunk\njudged"),
            ("no_gold", "no gold-bearing\nchunk judged"),
        )
        groups = [(m, key, lab) for m in judged for key, lab in kinds]
        fig, ax = plt.subplots(figsize=(max(5, 1.5 * len(groups) + 2), 4.2))
        labels = [f"{m}\n{lab}" if len(judged) > 1 else lab for m, _, lab in groups]
        bottoms = [0.0] * len(groups)
        palette = {"correct": "#2e7d32", "ambiguous": "#f9a825", "incorrect": "#c62828"}
        confusion = [modes[m]["evaluator"]["confusion"][key] for m, key, _ in groups]
        tallest = max((sum(c[v] for v in VERDICTS) for c in confusion), default=0)
        for v in VERDICTS:
            vals = [c[v] for c in confusion]
            bars = ax.bar(labels, vals, 0.55, bottom=bottoms, label=v.upper(), color=palette[v])
            for bar, x in zip(bars, vals, strict=True):
                _count_label(ax, bar, x, tallest)
            bottoms = [b + x for b, x in zip(bottoms, vals, strict=True)]
        ax.set_ylabel("questions")
        ax.set_title(f"Evaluator verdicts\n{title}")
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="verdict")
        fig.tight_layout()
        fig.savefig(out_dir / PLOTS["verdicts"], dpi=110)
        plt.close(fig)
        drawn["verdicts"] = PLOTS["verdicts"]
    return drawn


def _count_label(ax: Any, bar: Any, count: int, tallest: float) -> None:
    """A segment's count: white inside it when it is tall enough to hold the text, else dark
    beside the bar (a 2-question sliver of a 120-question stack cannot hold a label)."""
    if not count:
        return
    y = bar.get_y() + bar.get_height() / 2
    if bar.get_height() >= 0.06 * tallest:
        x, align, color = bar.get_x() + bar.get_width() / 2, "center", "white"
    else:
        x, align, color = bar.get_x() + bar.get_width() + 0.03, "left", "black"
    ax.text(x, y, str(count), ha=align, va="center", fontsize=8, color=color)


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
