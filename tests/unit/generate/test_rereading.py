"""The generator's readings of all sources and of the best one alone: which candidate it
answers with, and when it refuses (crag.generate.generator with crag.generate.choice)."""

from __future__ import annotations

from dataclasses import replace

from tests.support.reading import (
    BRONCOS,
    NFC,
    VIM_BACKUP,
    VIM_REPEAT,
    ByPromptLLM,
    sections,
)
from tests.support.strips import strips

from crag.generate import Generator
from crag.generate.citations import number_sources
from crag.generate.reader import candidate


def test_crag_answers_with_the_reading_that_ties_the_answer_to_the_question() -> None:
    question = "Who did the Broncos beat in the AFC Championship Game?"
    scored = [replace(s, score=v) for s, v in zip(strips(NFC, BRONCOS), (0.3, 0.6), strict=True)]
    llm = ByPromptLLM(
        "Carolina Panthers [2].",  # copied from the wrong source, and miscited
        {"Patriots": "The New England Patriots [1].", "Cardinals": "NOT_FOUND"},
    )
    out = Generator(llm).generate(question, scored, reread=True)
    assert not out.refused and out.text.startswith("The New England Patriots [2]")
    assert [c.purpose for c in llm.calls] == ["generate", "generate-alone"]  # the best alone
    assert any("reading of source [2] alone" in n for n in out.notes)
    # plain RAG reads once, and keeps the model's answer
    once = ByPromptLLM("Carolina Panthers [2].", {})
    plain = Generator(once).generate(question, scored)
    assert plain.text.startswith("Carolina Panthers") and len(once.calls) == 1


def test_the_source_the_answer_already_stands_in_is_not_read_again_alone() -> None:
    """The readings alone are for answers copied from the wrong source: when the reading of
    all sources already ties its answer in the best-scored source, that source is not read
    again (a model call saved), and the next best one is read instead."""
    question = "Who did the Broncos beat in the AFC Championship Game?"
    scored = [replace(s, score=v) for s, v in zip(strips(NFC, BRONCOS), (0.3, 0.6), strict=True)]
    llm = ByPromptLLM("The New England Patriots [2].", {"Cardinals": "NOT_FOUND"})
    out = Generator(llm).generate(question, scored, reread=True)
    assert out.text.startswith("The New England Patriots [2]")
    assert [c.purpose for c in llm.calls] == ["generate"]
    assert any("source [2] holds the answer" in n for n in out.notes)
    assert out.read_alone == [] and [c.reading for c in out.candidates] == ["all"]
    two = ByPromptLLM("The New England Patriots [2].", {"Cardinals": "NOT_FOUND"})
    second = Generator(two, read_alone=2).generate(question, scored, reread=True)
    assert [c.purpose for c in two.calls] == ["generate", "generate-alone"]
    assert "Cardinals" in two.calls[1].messages[-1].content  # the next best source
    assert second.read_alone == [1]
    # an answer tied nowhere (or a refusal) leaves the best source to be read alone
    none = ByPromptLLM("NOT_FOUND", {"Patriots": "The New England Patriots [1]."})
    assert Generator(none).generate(question, scored, reread=True).text.startswith("The New")
    assert [c.purpose for c in none.calls] == ["generate", "generate-alone"]


def test_a_reading_alone_below_the_alignment_floor_is_not_an_answer() -> None:
    question = "Who did the Broncos beat in the AFC Championship Game?"
    other = "Super Bowl 50 was played in February 2016 at Levi's Stadium."
    llm = ByPromptLLM("NOT_FOUND", {"Patriots": "NOT_FOUND", "Levi's": "Levi's Stadium [1]."})
    out = Generator(llm, read_alone=2).generate(question, strips(BRONCOS, other), reread=True)
    assert out.refused and "no answer to the question was found" in out.text
    assert any("alignment floor" in n for n in out.notes)
    kept = ByPromptLLM("NOT_FOUND", {"Patriots": "NOT_FOUND", "Levi's": "Levi's Stadium [1]."})
    gen = Generator(kept, read_alone=2, align_floor=0.0)
    assert not gen.generate(question, strips(BRONCOS, other), reread=True).refused


def test_the_generator_passes_over_a_reading_that_repeats_the_question() -> None:
    question = "In Budapest, where did Tesla work?"
    text = "In Budapest, Tesla worked at a telegraph company, the Budapest Telephone Exchange."
    pair = strips(text, "Budapest is a city.")
    scored = [replace(s, score=v) for s, v in zip(pair, (0.6, 0.1), strict=True)]
    llm = ByPromptLLM("Budapest [1].", {"telegraph": "a telegraph company [1]."})
    out = Generator(llm).generate(question, scored, reread=True)
    assert not out.refused and out.text.startswith("a telegraph company [1]"), out.text
    assert any("only repeats the question" in n for n in out.notes)
    alone = ByPromptLLM("Budapest [1].", {"telegraph": "Budapest [1].", "city": "NOT_FOUND"})
    assert Generator(alone).generate(question, scored, reread=True).refused


def test_corroboration_refuses_an_unsure_answer_the_best_source_alone_does_not_give() -> None:
    """`corroborate` (off by default): when the evaluator was not sure (an evidence floor is
    set), an answer only the reading of all sources gave, while the best source read alone
    declined, is refused — even when the answer stands in another source (the demo's bee
    answer is such a case: the reason it is off). With the evaluator sure it stands."""
    question = "Who did the Broncos beat in the AFC Championship Game?"
    other = "Super Bowl 50 was played in February 2016 at Levi's Stadium."
    scored = [replace(s, score=v) for s, v in zip(strips(other, BRONCOS), (0.6, 0.3), strict=True)]

    def llm() -> ByPromptLLM:
        return ByPromptLLM("The New England Patriots [2].", {"": "NOT_FOUND"})

    strict = Generator(llm(), corroborate=True)
    unsure = strict.generate(question, scored, reread=True, evidence_floor=0.0)
    assert unsure.refused and "read on its own, does not give the answer" in unsure.text
    assert any("not corroborated" in n for n in unsure.notes)
    sure = Generator(llm(), corroborate=True).generate(question, scored, reread=True)
    assert not sure.refused and sure.text.startswith("The New England Patriots")
    default = Generator(llm()).generate(question, scored, reread=True, evidence_floor=0.0)
    assert not default.refused  # off by default
    # corroborated: the best source read alone gives an answer (even another one)
    both = ByPromptLLM("The New England Patriots [2].", {"Levi's": "Levi's Stadium [1]."})
    agreed = Generator(both, corroborate=True).generate(
        question, scored, reread=True, evidence_floor=0.0
    )
    assert not agreed.refused
    # or the answer already stands in the best source (which is then not read again)
    pair = [replace(s, score=v) for s, v in zip(strips(BRONCOS, other), (0.6, 0.3), strict=True)]
    held = ByPromptLLM("The New England Patriots [1].", {"": "NOT_FOUND"})
    kept = Generator(held, corroborate=True).generate(
        question, pair, reread=True, evidence_floor=0.0
    )
    assert not kept.refused and [c.purpose for c in held.calls] == ["generate"]


def test_an_answer_read_in_a_sources_section_heading_is_found_there() -> None:
    q = "Which dgram socket method joins a multicast group?"
    sources = number_sources(sections(), titled=True)
    assert sources[0].label.endswith("socket.addMembership(multicastAddress)")
    c = candidate("socket.addMembership(multicastAddress) [2].", q, sources, "all")
    assert c is not None and c.source == 1 and c.alignment > 0.2
    reply = "socket.addMembership(multicastAddress) [1]."
    out = Generator(ByPromptLLM(reply, {})).generate(q, sections(), titled=True)
    assert not out.refused and out.text.startswith(reply), out.text
    # unlabelled, the reader was not shown the heading: an answer from it is found nowhere
    assert Generator(ByPromptLLM(reply, {})).generate(q, sections()).refused
    # the document's title is not searched: an answer that is the article's name is its topic
    topic = "UDP/datagram sockets [1]."
    assert Generator(ByPromptLLM(topic, {})).generate(q, sections(), titled=True).refused


def test_an_answer_in_symbols_is_a_candidate_tied_where_it_stands() -> None:
    """Over Vim's manual the reader answered "~ [1]" and 'The "." command [1]': the first was
    dropped as empty (no letter), the second as only repeating the question (its one word is
    the question's). Both are answers (crag.symbols)."""
    question = "What does Vim add to the end of a backup file's name?"
    backup = strips(VIM_BACKUP, "Vim keeps a backup copy when overwriting a file.")
    sources = number_sources(backup)
    got = candidate("~ [1", question, sources, "all")
    assert got is not None and (got.short, got.source) == ("~", 1) and got.alignment > 0.3
    scored = [replace(s, score=v) for s, v in zip(backup, (0.6, 0.3), strict=True)]
    out = Generator(ByPromptLLM("~ [1]", {"": "~ [1]"})).generate(question, scored, reread=True)
    assert not out.refused and out.text.startswith("~ [1]"), out.text
    repeat = [replace(s, score=0.6) for s in strips(VIM_REPEAT)]
    llm = ByPromptLLM('The "." command [1].', {"": 'The "." command [1].'})
    said = Generator(llm).generate("Which command repeats the last change?", repeat, reread=True)
    assert not said.refused and said.text.startswith('The "." command [1]'), said.text
