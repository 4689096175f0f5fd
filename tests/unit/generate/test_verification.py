"""The answer check's verification, with a fixed verifier (no model): asked when the
evaluator was not sure (or, with `verify_correct`, under CORRECT too), shown the strip as the
reader read it, recorded with its cut, and refusing below the cut."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

from tests.support.reading import MOON, ScriptedLLM
from tests.support.strips import strips

from crag.generate import Generator
from crag.refine.strips import decompose

Written = partial(Generator, explain="model")


@dataclass
class FixedVerifier:
    """Says how sure it is that the passage states the answer; records what it was shown."""

    p: float
    seen: list[tuple[str, str]] = field(default_factory=list)

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.seen.append((question, passages[0]))
        return [self.p] * len(passages)


def test_when_the_evaluator_is_unsure_the_passage_must_state_the_answer() -> None:
    question = "Who was the second person to walk on the moon?"
    no = FixedVerifier(0.2)
    out = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=no).generate(
        question, strips(*MOON), evidence_floor=0.1
    )
    # the reason says what is true: the passage holds a proposed answer, not the answer
    reason = "the passage the proposed answer comes from does not state it as the answer to this"
    assert out.refused and reason in out.text, out.text
    asked, passage = no.seen[0]
    assert asked.endswith("Answer: Buzz Aldrin") and passage == MOON[1]
    yes = FixedVerifier(0.9)
    out = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=yes).generate(
        question, strips(*MOON), evidence_floor=0.1
    )
    assert not out.refused and out.text == "Buzz Aldrin [2]"
    # a confident verdict (no floor) needs no verification call
    quiet = FixedVerifier(0.0)
    Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=quiet).generate(question, strips(*MOON))
    assert quiet.seen == []


def test_the_verification_reads_each_strip_on_one_line_as_the_reader_did() -> None:
    """A strip keeps a blank line after a list item for its quotes (crag.refine.strips); the
    verification reads the passage as the reader's prompt shows it, on one line."""
    codes = "Files that the user cannot read from.\n\n* 130 -- The process got a SIGINT.\n\nDone."
    read = decompose([strips(codes)[0].chunk], "excerption")
    assert "\n\n" in read[0].text
    seen = FixedVerifier(0.9)
    Written(ScriptedLLM("130 [1]"), verifier=seen).generate(
        "Which code means a SIGINT?", read, evidence_floor=0.1
    )
    assert seen.seen and seen.seen[0][1] == " ".join(read[0].text.split())


def test_each_verification_is_recorded_with_its_cut() -> None:
    question = "Who was the second person to walk on the moon?"
    for reread in (False, True):
        gen = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=FixedVerifier(0.6))
        out = gen.generate(question, strips(*MOON), evidence_floor=0.1, reread=reread)
        assert out.refused and len(out.verifications) >= 1
        first = out.verifications[0]
        assert (first.short, first.source, first.p_yes, first.cut) == ("Buzz Aldrin", 2, 0.6, 0.75)
        assert not first.passed
        low = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=FixedVerifier(0.6), verify_cut=0.5)
        out = low.generate(question, strips(*MOON), evidence_floor=0.1, reread=reread)
        assert not out.refused and out.verifications[-1].passed
    nan = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=FixedVerifier(math.nan))
    out = nan.generate(question, strips(*MOON), evidence_floor=0.1)
    assert not out.refused and out.verifications[0].passed  # unknown never refuses
    # not verified (a CORRECT verdict): nothing recorded
    quiet = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=FixedVerifier(0.0))
    assert quiet.generate(question, strips(*MOON)).verifications == []


def test_verify_correct_checks_the_span_under_a_correct_verdict_too() -> None:
    question = "Who was the second person to walk on the moon?"
    for reread in (False, True):
        no = FixedVerifier(0.2)
        gen = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=no, verify_correct=True)
        out = gen.generate(question, strips(*MOON), confident=True, reread=reread)
        assert out.refused and "does not state it" in out.text
        assert no.seen and no.seen[0][1] == MOON[1]
    yes = FixedVerifier(0.9)
    gen = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=yes, verify_correct=True)
    assert not gen.generate(question, strips(*MOON), confident=True).refused
    # plain RAG (no verdict, no floor) is never verified
    quiet = FixedVerifier(0.0)
    gen = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=quiet, verify_correct=True)
    assert not gen.generate(question, strips(*MOON)).refused and quiet.seen == []


def test_under_correct_only_an_answer_no_source_holds_as_written_is_verified() -> None:
    """The evaluator vouched for the passages: a span of one is not verified, but a short
    answer accepted on its content words (one the model worded) is; before, "Valgrind comes
    from the French word 'val'" passed on three of its words in a passage on pronouncing it."""
    question = "Who was the second person to walk on the moon?"
    for reread in (False, True):
        quiet = FixedVerifier(0.0)
        gen = Written(ScriptedLLM("Buzz Aldrin [2]"), verifier=quiet)
        out = gen.generate(question, strips(*MOON), confident=True, reread=reread)
        assert not out.refused and quiet.seen == []
        worded = "Aldrin, the astronaut, walked second on it in July 1969 [2]"
        no = FixedVerifier(0.2)
        gen = Written(ScriptedLLM(worded), verifier=no)
        out = gen.generate(question, strips(*MOON), confident=True, reread=reread)
        assert out.refused and "does not state it" in out.text, out.text
        assert no.seen and no.seen[0][1] == MOON[1]
        yes = FixedVerifier(0.9)
        gen = Written(ScriptedLLM(worded), verifier=yes)
        out = gen.generate(question, strips(*MOON), confident=True, reread=reread)
        assert not out.refused and yes.seen, out.text
    # a bare yes has no words of its own, and the verifier cannot judge one: not asked
    quiet = FixedVerifier(0.0)
    gen = Written(ScriptedLLM("Yes [2]"), verifier=quiet)
    out = gen.generate("Did Buzz Aldrin walk on the moon?", strips(*MOON), confident=True)
    assert not out.refused and quiet.seen == [], out.text


def test_a_worded_answer_that_adds_a_name_is_refused_before_any_verification() -> None:
    question = "Who was the second person to walk on the moon?"
    seen = FixedVerifier(0.9)
    worded = "Aldrin, the Apollo astronaut, walked second on it in July 1969 [2]"
    gen = Written(ScriptedLLM(worded), verifier=seen)
    out = gen.generate(question, strips(*MOON), evidence_floor=0.1)
    assert out.refused and seen.seen == []
    assert any("'Apollo'" in note for note in out.notes), out.notes
