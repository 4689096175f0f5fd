"""Replies that name no answer: a short answer that repeats the question or copies a label
(crag.generate.repeats), as the candidates of the readings see it (crag.generate.reader)."""

from __future__ import annotations

from dataclasses import replace

from tests.support.reading import sections
from tests.support.strips import strips

from crag.generate.citations import number_sources
from crag.generate.reader import Reading, candidates
from crag.generate.repeats import copies_label, names_nothing, repeats_question


def test_an_answer_that_only_repeats_the_question_is_no_candidate() -> None:
    assert repeats_question("curriculum", "What kind of curriculum is most likely followed?")
    assert repeats_question("Budapest", "In Budapest, where did Tesla work?")
    assert not repeats_question("a telegraph company", "In Budapest, where did Tesla work?")
    assert not repeats_question("Yes", "Is Paris in France?")  # function words: not judged
    assert not repeats_question("Paris", "Is Paris or Lyon the capital of France?")  # choices
    assert not repeats_question("Ankara", "Başkent Ankara mı yoksa İstanbul mu?")
    # "which" with "between": a choice between two things the question names
    eu = "AB hukuku ile ulusal hukuk arasında bir çatışma varsa, hangi yasa öncelikli olur?"
    assert not repeats_question("AB hukuku", eu)
    assert not repeats_question("EU law", "Between EU law and national law, which prevails?")
    # "between" alone offers no choice, nor "which" with "between" one thing
    assert repeats_question("Paris", "What is the distance between Paris and Lyon?")
    assert repeats_question("Elektrik yükleri", "Elektrik yükleri arasında hangi kuvvet var?")
    # a command-line option names what to type, which the question's words do not
    assert not repeats_question("--ignore-case", "How do I make grep ignore case?")
    assert not repeats_question("-r", "What does the -R option do?")  # another option
    assert repeats_question("-R", "What does chmod's -R option do?")
    assert repeats_question("ignore case", "How do I make grep ignore case?")
    # so does a quoted literal, unless the question quotes that same value
    event = "Which event does a net.Server emit when a new connection is made?"
    assert not repeats_question("'connection'", event)
    assert not repeats_question("'.html'", "What does path.extname('index.html') return?")
    assert repeats_question("`'close'`", "When is the 'close' event emitted?")
    assert repeats_question("connection", event)
    # a symbol the question does not write says something new (crag.symbols)
    assert not repeats_question('The "." command', "Which command repeats the last change?")
    assert repeats_question('The "%" command', 'What does the "%" command do?')
    # so does a name as code writes it, which the question does not write as such
    username = "Which URL property gets and sets the username portion of the URL?"
    assert not repeats_question("url.username", username)
    assert not repeats_question("SCHED_RR", "Which scheduling policy is the sched rr one?")
    assert repeats_question("url.username", "What does url.username hold in a URL?")
    assert repeats_question("3.5", "What did version 3.5 add?")  # a number is no name
    # alone or as its signature writes it
    suppress = "Which contextlib context manager suppresses the specified exceptions?"
    assert not repeats_question("contextlib.suppress(*exceptions)", suppress)
    assert repeats_question("url.username()", "What does url.username hold in a URL?")


def test_a_sources_label_copied_as_the_answer_is_no_candidate() -> None:
    q = "Which dgram socket method joins a multicast group?"
    sources = number_sources(sections(), titled=True)
    label = sources[0].label  # "UDP/datagram sockets › socket.addMembership(multicastAddress)"
    assert " › " in label
    assert copies_label(label, sources) and copies_label(f"({label}).", sources)
    assert not copies_label("socket.addMembership(multicastAddress)", sources)  # its heading
    assert not copies_label(label, number_sources(sections()))  # not shown: not a label
    notes: list[str] = []
    found = candidates([Reading(f"{label} [1].", "all")], q, sources, notes)
    assert found == [] and "is a source's label" in notes[0]
    # a source whose own text writes the path (a breadcrumb) may be quoted from
    crumb = f"You are here: {label}."
    shown = number_sources([replace(s, text=crumb) for s in sections()], titled=True)
    assert not copies_label(label, shown)


def test_a_value_a_source_writes_as_a_code_literal_is_an_answer_in_the_questions_words() -> None:
    q = "Which event does a net.Server emit when a new connection is made?"
    found: list[str] = []
    literal = number_sources(strips("Event: 'connection'. Emitted when a new connection is made."))
    assert [
        c.short for c in candidates([Reading("connection [1].", "all")], q, literal, found)
    ] == ["connection"]
    prose = number_sources(strips('Emitted when a new "connection" is made.'))
    assert candidates([Reading("connection [1].", "all")], q, prose, found) == []
    assert "only repeats the question" in found[-1]


def test_a_literal_the_question_names_by_what_it_is_repeats_the_question() -> None:
    # the Rust book: "move" answered "What does the move keyword do in front of a closure?"
    q = "What does the move keyword do in front of a closure?"
    book = number_sources(strips("Use the `move` keyword to force the closure to take ownership."))
    found: list[str] = []
    assert candidates([Reading("move [1].", "all")], q, book, found) == []
    assert "only repeats the question" in found[-1]
    explained = "The move keyword forces the closure to take ownership of the values [1]."
    assert len(candidates([Reading(explained, "all")], q, book, found)) == 1
    # an operator named by its sign
    op = number_sources(strips("The `?` operator returns the error early."))
    assert candidates([Reading("`?` [1].", "all")], "What does the ? operator do?", op, found) == []


def test_a_method_a_source_declares_is_an_answer_in_the_questions_words() -> None:
    # rustdoc's HashMap page: the method's name is the question's word "entry"
    q = "Which HashMap method gets a key's entry for in-place manipulation?"
    declared = number_sources(
        strips(
            "pub fn entry(&mut self, key: K) -> Entry<'_, K, V, A>. Gets the given key's "
            "corresponding entry in the map for in-place manipulation."
        )
    )
    assert names_nothing("entry", q, declared) is None
    called = number_sources(strips("let e = map.entry(key); gets the key's entry in place."))
    assert names_nothing("entry", q, called) is None
    # in prose only, "entry" is the question's word; nor does a question that asks for no
    # name by what it is ("method", "function", "option" …) make it one
    prose = number_sources(strips("Each key has an entry in the map, for in-place manipulation."))
    assert names_nothing("entry", q, prose) == "only repeats the question"
    what = "What does a HashMap keep for each key's entry?"
    assert names_nothing("entry", what, declared) == "only repeats the question"
    # the question naming it by what it is asks about it ("the entry method")
    named = "What does the entry method of HashMap return?"
    assert names_nothing("entry", named, declared) == "only repeats the question"


def test_a_name_the_question_writes_as_code_repeats_it_even_where_a_source_quotes_it() -> None:
    # rustdoc's VecDeque page writes `VecDeque` in backticks everywhere
    q = "What data structure is VecDeque implemented with?"
    page = number_sources(
        strips("Read is implemented for `VecDeque<u8>` by consuming bytes from the `VecDeque`.")
    )
    assert names_nothing("VecDeque", q, page) == "only repeats the question"
    assert names_nothing("`VecDeque`", q, page) == "only repeats the question"
    assert names_nothing("growable ring buffer", q, page) is None
    rc = number_sources(strips("Makes a clone of the `Rc` pointer."))
    assert names_nothing("Rc", "What kind of pointer is Rc?", rc) == "only repeats the question"
    for question in ("Which constant is SCHED_RR?", "What is buf.length?"):
        name = question.split(" ")[-1].rstrip("?")
        quoted = number_sources(strips(f"The value `{name}` is set."))
        assert names_nothing(name, question, quoted) == "only repeats the question"
    # a plain word the question writes stays an answer where a source quotes it as a value
    event = "Which event does a net.Server emit when a new connection is made?"
    literal = number_sources(strips("Event: 'connection'. Emitted when a new connection is made."))
    assert names_nothing("connection", event, literal) is None
