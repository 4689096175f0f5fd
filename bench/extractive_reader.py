"""An extractive reader trained here, scored on the strips a finished `crag eval` run kept.

    python -m bench.extractive_reader train OUT_DIR [--nq 5000]     # ~35 min on 2 cores, bf16
    python -m bench.extractive_reader score MODEL_DIR RUN_DIR

Why: no extractive-QA weights ship in any installable package, but the datasets hold labelled
spans, and crag already trains its evaluator from them. A span model (start/end logits over
the question and a strip) would be a second reader that costs milliseconds instead of seconds,
and could back the 1.5B model's answer or replace its NOT_FOUND.

`train` fine-tunes the packaged evaluator's encoder (`crag-evaluator`, which has learned to
relate a question to a passage) with a fresh span head on the evaluator's "train" part only
(`crag.datasets.evaluator_part`): every answerable SQuAD-en question with its paragraph, and
`--nq` NQ questions with their gold passage, each with one negative (SQuAD: another paragraph
of the same article; NQ: the passage sharing most question words among 150 drawn at random),
neither holding an answer string. Windows of 256 tokens (stride 96) without the answer point
at [CLS]; 40 % of them are kept. One epoch, batch 16, AdamW 6e-5, seed 0.

`score` reads each answerable question's kept strips from RUN_DIR's traces (what the 1.5B
reader read), takes the best span of at most 30 tokens over them, and compares it with the
gold answers (`contains_answer`, as `crag eval` scores) and with crag's own outcome. Use a
tuning-part run: this chooses, it does not report. Writes bench/results/extractive_reader.json.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import write_results
from crag.datasets.splits import evaluator_part
from crag.datasets.squad import read_squad
from crag.eval.metrics import contains_answer

_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
_BASE = Path(__file__).resolve().parents[1] / "src/crag/models/data/crag-evaluator"
_WORD = re.compile(r"\w+")
Example = dict[str, Any]  # q, c (context), a (answer or None), s (its character offset)


def _first(context: str, answers: Any) -> tuple[str, int] | None:
    for a in answers:
        if (at := context.find(a)) >= 0:
            return a, at
    return None


def squad_examples(data: Path) -> list[Example]:
    raw = json.loads((data / "squad-en-dev-subset.json").read_text())
    article = {p["context"]: a["title"] for a in raw["data"] for p in a["paragraphs"]}
    paragraphs: dict[str, list[str]] = {}
    for ctx, title in article.items():
        paragraphs.setdefault(title, []).append(ctx)
    out: list[Example] = []
    seen: set[tuple[str, str]] = set()
    for it in read_squad(data / "squad-en-dev-subset.json"):
        ctx = it.split_key or ""
        if not it.answerable or evaluator_part(ctx) != "train" or (it.question, ctx) in seen:
            continue
        seen.add((it.question, ctx))
        if (found := _first(ctx, it.answers)) is None:
            continue
        out.append({"q": it.question, "c": ctx, "a": found[0], "s": found[1]})
        golds = [a.lower() for a in it.answers]
        others = [p for p in paragraphs[article[ctx]] if p != ctx and not _holds(p, golds)]
        if others:
            neg = random.Random(it.question).choice(others)
            out.append({"q": it.question, "c": neg, "a": None, "s": -1})
    return out


def _holds(text: str, golds: list[str]) -> bool:
    low = text.lower()
    return any(g in low for g in golds)


def nq_examples(data: Path, limit: int, seed: int = 0) -> list[Example]:
    passages = {}
    for line in (data / "nq-passages.jsonl").open():
        rec = json.loads(line)
        passages[rec["id"]] = rec["text"]
    qs = [json.loads(line) for line in (data / "nq-questions-dev.jsonl").open()]
    qs = [q for q in qs if evaluator_part(q["gold_passage"]) == "train"]
    qs = [q for q in qs if q["gold_passage"] in passages]
    rng = random.Random(seed)
    rng.shuffle(qs)
    ids, words, out = list(passages), {}, []
    for q in qs[:limit]:
        ctx = passages[q["gold_passage"]]
        if (found := _first(ctx, q["answers"])) is None:
            continue
        out.append({"q": q["question"], "c": ctx, "a": found[0], "s": found[1]})
        asked = set(_WORD.findall(q["question"].lower()))
        golds = [a.lower() for a in q["answers"]]
        best, overlap = None, -1
        for pid in rng.sample(ids, 150):
            if pid == q["gold_passage"] or _holds(passages[pid], golds):
                continue
            if pid not in words:
                words[pid] = set(_WORD.findall(passages[pid].lower()))
            if (n := len(asked & words[pid])) > overlap:
                best, overlap = pid, n
        if best:
            out.append({"q": q["question"], "c": passages[best], "a": None, "s": -1})
    return out


def train(out: Path, nq: int, data: Path) -> None:
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(_BASE)
    ex = squad_examples(data) + nq_examples(data, nq)
    random.Random(0).shuffle(ex)
    enc = tok([e["q"] for e in ex], [e["c"] for e in ex], truncation="only_second",
              max_length=256, stride=96, return_overflowing_tokens=True,
              return_offsets_mapping=True)  # fmt: skip
    rng = random.Random(1)
    feats = []
    for i, ids in enumerate(enc["input_ids"]):
        e = ex[enc["overflow_to_sample_mapping"][i]]
        offs, seq = enc["offset_mapping"][i], enc.sequence_ids(i)
        ctx = [k for k, s in enumerate(seq) if s == 1]
        start = end = 0
        if e["a"] is not None:
            s, t = e["s"], e["s"] + len(e["a"])
            if offs[ctx[0]][0] <= s and offs[ctx[-1]][1] >= t:
                start = next(k for k in ctx if offs[k][0] <= s < offs[k][1] or offs[k][0] >= s)
                end = next(k for k in reversed(ctx) if offs[k][0] < t)
        if start or rng.random() < 0.4:
            feats.append((ids, enc["token_type_ids"][i], start, end))
    rng.shuffle(feats)
    batch = 16  # batches of similar length (sorted within blocks of 50), in random order
    block = batch * 50
    starts = range(0, len(feats), block)
    blocks = [sorted(feats[i : i + block], key=lambda f: len(f[0])) for i in starts]
    batches = [b[i : i + batch] for b in blocks for i in range(0, len(b), batch)]
    rng.shuffle(batches)
    print(f"{len(ex)} examples, {len(feats)} windows, {len(batches)} steps", flush=True)
    model = AutoModelForQuestionAnswering.from_pretrained(_BASE, dtype=torch.float32, num_labels=2)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=6e-5, weight_decay=0.01)
    steps, warm = len(batches), max(1, len(batches) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm)))
    )
    t0 = time.time()
    for step, b in enumerate(batches):
        width = max(len(f[0]) for f in b)
        ids = torch.tensor([f[0] + [0] * (width - len(f[0])) for f in b])
        types = torch.tensor([f[1] + [0] * (width - len(f[1])) for f in b])
        mask = (ids != 0).long()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(input_ids=ids, token_type_ids=types, attention_mask=mask,
                         start_positions=torch.tensor([f[2] for f in b]),
                         end_positions=torch.tensor([f[3] for f in b])).loss  # fmt: skip
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 50 == 0:
            took = time.time() - t0
            print(f"step {step}/{steps} loss {loss.item():.3f} {took:.0f} s", flush=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)


def score(model_dir: Path, run: Path) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForQuestionAnswering.from_pretrained(model_dir, dtype=torch.float32).eval()

    def best_span(question: str, texts: list[str]) -> tuple[float, str]:
        enc = tok([question] * len(texts), texts, truncation="only_second", max_length=384,
                  padding=True, return_offsets_mapping=True, return_tensors="pt")  # fmt: skip
        offs = enc.pop("offset_mapping")
        with torch.no_grad():
            out = model(**enc)
        best = (-math.inf, "")
        for i, text in enumerate(texts):
            ctx = [k for k, s in enumerate(enc.sequence_ids(i)) if s == 1]
            sl, el = out.start_logits[i].tolist(), out.end_logits[i].tolist()
            null = sl[0] + el[0]  # the [CLS] "no answer here" score
            for a in ctx:
                for b in ctx:
                    if a <= b < a + 30 and sl[a] + el[b] - null > best[0]:
                        best = (sl[a] + el[b] - null, text[offs[i][a][0] : offs[i][b][1]])
        return best

    rows = []
    for line in (run / "results.jsonl").open():
        r = json.loads(line)
        kept = [s["text"] for s in r["trace"].get("strips") or [] if s["kept"]]
        if not r["answerable"] or not kept:
            continue
        margin, span = best_span(r["question"], kept)
        ok = contains_answer(r["answer"], r["answers"])
        crag = "refused" if r["refused"] else "right" if ok else "wrong"
        rows.append({"question": r["question"], "crag": crag, "span": span,
                     "margin": round(margin, 2),
                     "right": contains_answer(span, r["answers"])})  # fmt: skip
    cross = Counter(f"crag {r['crag']}, span {'right' if r['right'] else 'wrong'}" for r in rows)
    print(f"{len(rows)} questions with kept strips: the span is right for "
          f"{sum(r['right'] for r in rows)}")  # fmt: skip
    for key, n in sorted(cross.items()):
        print(f"  {key}: {n}")
    return {"run": str(run), "model": str(model_dir), "cross": dict(cross), "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("out", type=Path)
    t.add_argument("--nq", type=int, default=5000)
    t.add_argument("--data", type=Path, default=_DATA)
    s = sub.add_parser("score")
    s.add_argument("model", type=Path)
    s.add_argument("run", type=Path)
    args = ap.parse_args()
    if args.cmd == "train":
        train(args.out, args.nq, args.data)
    else:
        write_results("extractive_reader", score(args.model, args.run))


if __name__ == "__main__":
    main()
