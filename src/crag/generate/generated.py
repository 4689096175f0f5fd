"""What the generator returns: the checked answer or a refusal, with what it read and why.

A record of its own so that the pipeline, Self-RAG's reflection and the tests can name it
without the generator's machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crag.generate.answer_check import Verification
from crag.generate.citations import Source
from crag.generate.reader import Candidate
from crag.types import Citation

__all__ = ["Generated"]


@dataclass(slots=True)
class Generated:
    text: str
    citations: list[Citation]
    refused: bool
    language: str
    sources: list[Source] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The generator's own confidence in the answer: the attribution check's support of its
    # least supported kept sentence (share of its new content words found in the sources it
    # cites), 1.0 for a refusal. Self-RAG's `--reflect auto` reflects when it is low.
    support: float = 1.0
    # crag's readings (`reread`): the candidate answers, and the sources read alone
    candidates: list[Candidate] = field(default_factory=list)
    read_alone: list[int] = field(default_factory=list)
    # every verification the answer check asked, in order (the last is the answer's when it
    # was verified and not refused)
    verifications: list[Verification] = field(default_factory=list)
