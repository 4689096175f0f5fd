"""The reading of all sources framed as code, on the strips a finished `crag eval` run kept.

    python -m bench.code_reading RUN_DIR [--limit 100]

Each question's kept strips (numbered as crag numbers them) are read once more by the
configured generator through `crag.generate.code_reading` (a Python dictionary of the sources,
the reply a JSON value under a schema), and the short answer is compared with the gold
answers. Three rows: the run's own reading of all sources (prose), the coded reading alone,
and the two together as `generate.code_span` combines them (the prose reading decides whether
to answer, the coded one gives the span). Use tuning-part runs: this chooses, it does not
report. Writes bench/results/code_reading.json.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.common import console, generator, print_table, run_args, write_results
from bench.reader_prompts import load, outcome
from crag.generate.citations import number_sources
from crag.generate.code_reading import code_request, from_code
from crag.generate.declined import declined
from crag.generate.matching import short_answer

_DECLINED = ("declined", "near_declined")


def main() -> None:
    args = run_args(__doc__)
    llm = generator()
    rows: list[dict[str, Any]] = []
    for q in load(args.run)[: args.limit]:
        sources = number_sources(q.strips)
        reply = from_code(llm.chat(code_request(q.question, sources)).text)
        short = "" if declined(reply, sources) else short_answer(reply)
        prose = outcome(q.baseline, q.answers, q.answerable, q.language)
        coded = outcome(short, q.answers, q.answerable, q.language)
        rows.append({"question": q.question, "prose": prose, "code": coded, "reply": reply,
                     "both": prose if prose in _DECLINED else coded})  # fmt: skip
        console.print(f"{len(rows)}: {rows[-1]}")
    table = []
    for how in ("prose", "code", "both"):
        c = Counter(r[how] for r in rows)
        near = c["near_answered"] + c["near_declined"]
        table.append([how, len(rows), c["right"], c["wrong"], c["declined"],
                      f"{c['near_answered']} of {near}"])  # fmt: skip
    print_table(
        "The reading of all sources: prose, framed as code, and the two together",
        ["reading", "questions", "right", "wrong", "declined", "near misses answered"],
        table,
    )
    write_results("code_reading", {"run": str(args.run), "rows": rows})


if __name__ == "__main__":
    main()
