"""How long a `crag ask` takes as a new process, with and without the saved prompt states.

    python -m bench.cold_start                  # 3 rounds over the sample corpus' questions
    python -m bench.cold_start --rounds 5 --models-dir .crag/models

Each `crag ask` is a new Python process: it imports crag, loads the embedder, the
cross-encoder and the generator, and — before crag.models.llm.prompt_state — computed the
reader's instructions and examples (about 320 tokens) again. Per question and round, two
asks are timed, alternating which goes first: one with the states folder emptied (the first
ask after an install), one after another question has saved the states (every later ask).
Wall-clock seconds of the whole command, so take them with nothing else running and give the
load average beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from pathlib import Path

from bench.common import console, machine_info, percentile, print_table, write_results

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [  # the sample corpus answers these (the demo's first question is the warm-up)
    "Who was granted the patent for the telephone?",
    "Who decoded the waggle dance?",
    "How long does a worker honey bee live in summer?",
]
WARM_UP = "How does a honey bee tell others how far away the flowers are?"


def _ask(question: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(["crag", "ask", question], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data-dir", type=Path, default=ROOT / ".crag" / "bench-cold")
    ap.add_argument("--models-dir", type=Path, default=ROOT / ".crag" / "models",
                    help="where the packaged GGUFs are assembled (reused)")  # fmt: skip
    args = ap.parse_args()
    env = {**os.environ, "CRAG_DATA_DIR": str(args.data_dir),
           "CRAG_LLM__MODELS_DIR": str(args.models_dir), "HF_HUB_OFFLINE": "1"}  # fmt: skip
    states = args.models_dir / "states"
    subprocess.run(["crag", "ingest", str(ROOT / "examples" / "sample")], env=env, check=True,
                   capture_output=True)  # fmt: skip
    times: dict[str, list[float]] = {"no saved state": [], "saved state": []}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for i, question in enumerate(QUESTIONS):
            for kind in sorted(times, reverse=(r + i) % 2 == 1):
                shutil.rmtree(states, ignore_errors=True)
                if kind == "saved state":
                    _ask(WARM_UP, env)  # saves the reader's and the verifier's states
                times[kind].append(_ask(question, env))
                console.print(f"round {r + 1} {kind}: {times[kind][-1]:.1f} s  {question}")
            load.append(os.getloadavg()[0])
    rows = [[k, len(v), f"{percentile(v, 50):.1f}", f"{min(v):.1f}", f"{max(v):.1f}"]
            for k, v in times.items()]  # fmt: skip
    for i, question in enumerate(QUESTIONS):  # per question: p50 without / with the states
        by = {k: v[i :: len(QUESTIONS)] for k, v in times.items()}
        p50 = " / ".join(f"{percentile(v, 50):.1f}" for v in by.values())
        rows.append([question, len(by["saved state"]), p50, "", ""])
    print_table(f"crag ask as a new process (1-min load {min(load):.1f}–{max(load):.1f})",
                ["states", "asks", "p50 s", "min s", "max s"], rows)  # fmt: skip
    write_results("cold_start", {"times": times, "load": load, "machine": machine_info()})


if __name__ == "__main__":
    main()
