"""The risk–coverage curve on disk: `curve.json` (every candidate threshold) and `curve.png`.

The PNG has two panels. Left, the risk–coverage curve: share of questions answered (x) against
the share of the answered ones that are right (y), one point per threshold, the chosen `lower`
marked. Right, the same figures against the threshold, with the hallucination budget and the
chosen `lower` and `upper` drawn in. Drawn with matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crag.calibrate.search import Choice

__all__ = ["write_curve"]


def write_curve(choice: Choice, out_dir: Path, meta: dict[str, Any]) -> tuple[Path, Path]:
    """Write curve.json and curve.png into `out_dir`; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {**meta, **choice.to_json(), "curve": choice.curve}
    json_path = out_dir / "curve.json"
    json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    png_path = out_dir / "curve.png"
    _plot(choice, png_path, meta)
    return json_path, png_path


def _plot(choice: Choice, path: Path, meta: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = choice.curve
    t = [p["threshold"] for p in pts]
    answered = [100 * (p["answered"] or 0) for p in pts]
    accuracy = [
        None if p["right_of_answered"] is None else 100 * p["right_of_answered"] for p in pts
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    xs = [a for a, acc in zip(answered, accuracy, strict=True) if acc is not None]
    ys = [acc for acc in accuracy if acc is not None]
    left.plot(xs, ys, marker=".", color="tab:blue")
    chosen = choice.at_lower
    if chosen["right_of_answered"] is not None:
        left.scatter(
            [100 * chosen["answered"]],
            [100 * chosen["right_of_answered"]],
            s=80,
            color="tab:red",
            zorder=3,
            label=f"lower = {choice.lower:.3f}",
        )
        left.legend(loc="lower left")
    left.set_xlabel("% of questions answered")
    left.set_ylabel("% of answered questions that are right")
    left.set_xlim(-2, 102)
    left.set_ylim(-2, 102)
    left.set_title("Risk–coverage")
    left.grid(alpha=0.3)

    right.step(t, answered, where="post", label="answered (all)", color="tab:blue")
    right.step(
        t,
        [100 * (p["right_of_answerable"] or 0) for p in pts],
        where="post",
        label="right (of answerable)",
        color="tab:green",
    )
    right.step(
        t,
        [100 * p["hallucination"] for p in pts],
        where="post",
        label="hallucination (of near misses)",
        color="tab:red",
    )
    right.axhline(100 * choice.max_hallucination, color="tab:red", linestyle=":", linewidth=1)
    right.axvline(choice.lower, color="black", linestyle="--", linewidth=1)
    right.axvline(choice.upper, color="gray", linestyle="-.", linewidth=1)
    right.annotate("lower", (choice.lower, 101), ha="center", va="bottom", fontsize=8)
    right.annotate("upper", (choice.upper, 106), ha="center", va="bottom", fontsize=8)
    right.set_xlabel("threshold (evaluator score)")
    right.set_ylabel("% of questions")
    right.set_ylim(-2, 112)
    right.legend(loc="center right", fontsize=8)
    right.grid(alpha=0.3)
    fig.suptitle(
        f"crag calibrate · {meta.get('collection', '')} · {meta.get('evaluator', '')} · "
        f"{meta.get('questions', 0)} questions"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
