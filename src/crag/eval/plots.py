"""The PNG plots of an eval run, drawn by matplotlib with the Agg backend (no display needed):
accuracy by mode, latency by stage (stacked mean ms per mode) and the evaluator's verdicts
split by whether a gold-bearing chunk was judged. Apart from report.md's tables because the
drawing code is as long as the rest of the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from matplotlib.colors import ListedColormap
    from matplotlib.ticker import MaxNLocator

from crag.eval.summary import STAGES, VERDICTS

__all__ = ["PLOTS", "stages_run", "write_plots"]

PLOTS = {
    "accuracy": "accuracy_by_mode.png",
    "latency": "latency_by_stage.png",
    "verdicts": "verdict_distribution.png",
}


def stages_run(modes: dict[str, Any]) -> list[str]:
    """Stages any mode ran, in pipeline order (unknown ones after), without the total."""
    seen = {st for s in modes.values() for st in s["latency"]} - {"total"}
    return [st for st in STAGES if st in seen] + sorted(seen - set(STAGES))


def write_plots(summary: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """The three PNGs; returns {kind: file name} for the ones drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = summary["modes"]
    names = list(modes)
    colors: Any = cast("ListedColormap", plt.get_cmap("tab10")).colors
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
    stages = stages_run(modes)
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
        cast("MaxNLocator", ax.yaxis.get_major_locator()).set_params(integer=True)
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
