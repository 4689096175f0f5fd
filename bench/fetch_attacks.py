"""Six attacks on the page-fetch deadline from a malicious loopback server (issue 21, F3).

    python -m bench.fetch_attacks [--deadline 2.0] [--gap 0.15] [--repeat 3]

`crag.web.fetch.PageFetcher` (the reader of web correction and of `crag ingest URL`) with
`timeout=--deadline` against the raw-socket servers of `tests/servers/stalling.py`: headers
trickled a byte at a time, a body trickled a byte at a time, a server that reads the request
and never answers, an endless chain of slow redirects (each hop well inside any per-operation
timeout), a redirect into trickled headers, and a port whose accept queue is full (a slow
connect, no TLS). Before the one-deadline fetcher, with 2.0 s, trickled headers held a fetch
20.2 s and a redirect chain 9.0 s. Target: every fetch ends within the deadline + 0.5 s, with a
"timed out" error. Each attack runs `--repeat` times; the worst time is what counts. Writes
bench/results/fetch_attacks.json.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from tests.servers.stalling import StallingServer, full_backlog

from bench.common import console, machine_info, print_table, write_results
from crag.errors import PageFetchError
from crag.web.fetch import PageFetcher

ATTACKS = {
    "trickled headers": "/trickle-headers",
    "trickled body": "/trickle-body",
    "silent after the request": "/silent",
    "endless slow redirect chain": "/redirect/0",
    "redirect into trickled headers": "/redirect-to-trickle",
    "slow connect (full accept queue)": "",
}


def attempt(url: str, deadline: float) -> tuple[float, str]:
    """Seconds the fetch took and how it ended."""
    fetcher = PageFetcher(allow_private_addresses=True, timeout=deadline, max_redirects=50)
    started = time.monotonic()
    try:
        fetcher.fetch(url)
        outcome = "fetched (no error)"
    except PageFetchError as exc:
        outcome = str(exc)
    finally:
        fetcher.close()
    return time.monotonic() - started, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, default=2.0, help="web.fetch_timeout")
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between drips/hops")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    results: dict[str, Any] = {}
    with StallingServer(gap=args.gap) as server:
        for name, path in ATTACKS.items():
            times, outcomes = [], []
            for _ in range(args.repeat):
                where: Callable[[], AbstractContextManager[str]] = (
                    (lambda: nullcontext(server.url)) if path else full_backlog
                )
                with where() as base:
                    took, outcome = attempt(base + (path or "/page"), args.deadline)
                times.append(took)
                outcomes.append(outcome)
            results[name] = {
                "seconds": [round(t, 3) for t in times],
                "worst_s": round(max(times), 3),
                "within": max(times) <= args.deadline + 0.5,
                "outcome": outcomes[-1][:120],
            }
    rows = [
        [name, f"{r['worst_s']:.2f}", " ".join(f"{t:.2f}" for t in r["seconds"]),
         "yes" if r["within"] else "NO", r["outcome"][:60]]
        for name, r in results.items()
    ]  # fmt: skip
    print_table(
        f"Page fetch under attack (deadline {args.deadline:g} s, "
        f"target ≤ {args.deadline + 0.5:g} s)",
        ["attack", "worst s", "each run s", "within", "how it ended"],
        rows,
    )
    held = sum(r["within"] for r in results.values())
    console.print(f"{held} of {len(results)} attacks ended within the deadline + 0.5 s")
    out = {"deadline_s": args.deadline, "gap_s": args.gap, "attacks": results}
    out["machine"] = machine_info() | {"loadavg_before": load}
    console.print(f"written to {write_results('fetch_attacks', out)}")
    return 0 if held == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
