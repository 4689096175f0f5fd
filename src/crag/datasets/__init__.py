"""Question and passage sets: SQuAD, NQ / JSONL, and the fixed splits over them.

Shared by `crag eval` (crag.eval), the evaluator's trainer (crag.grading.training), the
ingest loader's paragraph ids (crag.ingest.structured) and the benchmarks, so they agree on
what a question, its gold unit and its part of a split are. Depends on nothing but
`crag.errors`.
"""

from crag.datasets.items import EvalItem
from crag.datasets.jsonl import read_jsonl_questions, read_passages
from crag.datasets.questions import EvalDataset, load_dataset, select_items
from crag.datasets.splits import Part, evaluator_part, nq_part
from crag.datasets.squad import read_squad, squad_title, squad_unit_id

__all__ = [
    "EvalDataset",
    "EvalItem",
    "Part",
    "evaluator_part",
    "load_dataset",
    "nq_part",
    "read_jsonl_questions",
    "read_passages",
    "read_squad",
    "select_items",
    "squad_title",
    "squad_unit_id",
]
