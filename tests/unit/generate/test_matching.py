"""Citations by matching: the short answer, where it occurs, and contact details an answer may
carry only when its source holds them."""

from __future__ import annotations

import pytest

from crag.generate.matching import (
    added_names,
    contact_details,
    find_in_sources,
    fold,
    locate,
    short_answer,
    span_of,
    unsourced_contacts,
)


@pytest.mark.parametrize(
    ("answer", "short"),
    [
        ("May 27, 1937 [1]. The bridge opened on May 27, 1937 [1].", "May 27, 1937"),
        ("3.5 million people [2]", "3.5 million people"),
        ("U.S. Air Force [1]. He served there.", "U.S. Air Force"),
        ("Dr. Who. Then more.", "Dr. Who"),
        ("Paris", "Paris"),
        ("It opened in 1937. Then it closed.", "It opened in 1937"),
        ("Ankara [1, 2]", "Ankara"),
        ("Line one\nline two", "Line one"),
        # a hyphen that belongs to the answer stays: an option, a negative number
        ("-k [1]. -k, --keep keeps the input files [1].", "-k"),
        ("--ignore-case [2]", "--ignore-case"),
        ("-40 °C [1]. The lowest reading.", "-40 °C"),
        # one standing alone does not
        ("- Paris [1]", "Paris"),
        ("Paris - [1]", "Paris"),
        ("— Paris [1]", "Paris"),
        # "!" or "?" before the marker belongs to the answer: a macro, an operator, a title
        ("panic! [3]. It stops.", "panic!"),
        ("`panic!` [3].", "`panic!`"),
        ("Who's Afraid of Virginia Woolf? [2].", "Who's Afraid of Virginia Woolf?"),
        ("Paris! Then more.", "Paris"),
        # a "?" standing alone between words ends nothing
        ("The ? operator returns early [1]. More.", "The ? operator returns early"),
        ("Why? Because [1].", "Why"),
    ],
)
def test_the_short_answer_ends_at_its_first_marker_or_sentence_end(answer: str, short: str):
    assert short_answer(answer) == short


def test_folding_treats_turkish_i_and_accents_alike() -> None:
    assert fold("İSTANBUL Işık ışık Café") == ["istanbul", "isik", "isik", "cafe"]


def test_a_short_answer_is_found_in_order_with_a_suffix_on_its_last_word() -> None:
    sources = {1: "Atatürk Ankara'da yaşadı.", 2: "He moved in the 1930s.", 3: "Ankara is far."}
    assert find_in_sources("Ankara", sources) == [1, 3]
    assert find_in_sources("1930", sources) == [2]
    assert find_in_sources("far Ankara", sources) == []  # order matters
    assert find_in_sources("", sources) == []
    assert find_in_sources("4", {1: "States in four nations contain it."}) == [1]
    assert find_in_sources("four nations", {1: "in 4 nations"}) == [1]
    # Turkish number words that mean nothing else, with or without their accents
    assert find_in_sources("2", {1: "Kuvvet iki kuvvete bölünebilir."}) == [1]
    assert find_in_sources("dört", {1: "4 kişi geldi."}) == [1]
    assert find_in_sources("5", {1: "Beş yıl sürdü."}) == [1]
    # "bir" is also "a", "on" an English word: neither is a number
    assert find_in_sources("1", {1: "Bir gün geldi."}) == []
    assert find_in_sources("10", {1: "It stood on the hill."}) == []
    # "üç" is 3 only with its accents: folded, "uc" is the abbreviation "UC"
    assert find_in_sources("3", {1: "Boğaz üzerinde üç asma köprü bulunur."}) == [1]
    assert find_in_sources("3", {1: "She studied at UC Berkeley."}) == []


def test_a_number_is_not_found_inside_a_longer_number() -> None:
    # a suffix is letters: "3" is not in "31", nor "19" in "1937" (the quote once explained
    # "3" bridges with the sentence about the strait's 31 kilometres)
    assert find_in_sources("3", {1: "Uzunluğu yaklaşık 31 kilometredir."}) == []
    assert find_in_sources("19", {1: "It opened in 1937."}) == []
    assert find_in_sources("1930", {1: "He moved in the 1930s."}) == [1]
    assert find_in_sources("May 27", {1: "on May 27, 1937"}) == [1]


def test_the_models_marker_breaks_ties_but_is_not_evidence() -> None:
    sources = {1: "Neil Armstrong walked first.", 2: "x", 3: "Buzz Aldrin was second."}
    assert locate("Buzz Aldrin [2]", sources, hint=[2]) == [3]  # [2] does not hold it
    both = {1: "Buzz Aldrin flew.", 2: "Buzz Aldrin walked."}
    assert locate("Buzz Aldrin [2]", both, hint=[2]) == [2, 1]
    assert locate("Michael Collins [1]", sources, hint=[1]) == []


def test_contact_details_must_occur_in_the_cited_source() -> None:
    answer = "Visit http://evil.example/prize or write to admin@evil.example, +1 (555) 123-4567"
    assert contact_details(answer) == [
        "http://evil.example/prize",
        "admin@evil.example",
        "+1 (555) 123-4567",
    ]
    assert unsourced_contacts(answer, ["The capital is Ankara."]) == contact_details(answer)
    # the same number written differently in the source is the same number
    assert unsourced_contacts("call 555-123-4567 [1]", ["Phone: 555 123 4567."]) == []
    assert unsourced_contacts("It opened in 1937 [1].", ["It opened in 1937."]) == []


def test_an_option_is_found_only_as_itself() -> None:
    sources = {1: "--no-ignore-case  Do not ignore case.", 2: "-i, --ignore-case  Ignore case."}
    assert find_in_sources("--ignore-case", sources) == [2]
    assert find_in_sources("-i", sources) == [2]
    assert find_in_sources("-I", sources) == []  # options are case-sensitive
    assert find_in_sources("--sort=WORD", {1: "--sort=WORD  sort by WORD"}) == [1]
    assert find_in_sources("ignore case", sources) == [1, 2]  # words: as before


def test_a_dropped_markers_gap_closes_but_an_operators_space_stays() -> None:
    from crag.generate.citations import close_gaps

    assert close_gaps("It is red .") == "It is red."
    assert close_gaps("Paris , France !") == "Paris, France!"
    # "The ? operator returns" read "The? operator returns" once the gap closed
    assert close_gaps("The ? operator returns early.") == "The ? operator returns early."
    # nor a colon or stop glued to what follows: Vim's ":qall!", a ".vimrc"
    assert close_gaps("throws away all changes: :qall!") == "throws away all changes: :qall!"
    assert close_gaps("edit the .vimrc file .") == "edit the .vimrc file."


def test_an_answer_in_symbols_is_found_where_it_stands_alone() -> None:
    """Vim's backup suffix "~": found in "with a ~ added", not in "data.txt~" (crag.symbols);
    an answer with a word is matched by its words as before."""
    sources = {1: "the backup file data.txt~ is kept", 2: "with a ~ added to the end"}
    assert find_in_sources("~", sources) == [2]
    assert find_in_sources('"%"', {1: "Then the % command is handy", 2: "100%"}) == [1]
    assert find_in_sources("$?", {1: "run echo $? after it"}) == [1]
    assert find_in_sources("&", {1: "AT&T"}) == []
    text = 'Then the "%" command is very handy'
    start, end = span_of("%", text) or (0, 0)
    assert text[start:end] == "%"
    assert span_of("~", "no such symbol") is None
    assert find_in_sources("20%", {1: "about 20 percent"}) == [1]  # words: as before


def test_a_worded_answer_may_add_no_name_or_number() -> None:
    question = "Where does the name Valgrind come from?"
    passage = 'The "Val" as in the word "value". The "grind" is pronounced with a short i.'
    worded = 'Valgrind comes from the French word "val" meaning "value" [1]'
    assert added_names(worded, question, passage) == ["French"]
    assert added_names("It is about 9,000 metres", "How high?", "about 8,800 metres") == [
        "9",
        "000",
    ]
    # what the question or the source says, a suffix in the source, the first word
    assert added_names("about 8,800 metres", "How high is Everest?", "about 8,800 metres") == []
    assert added_names("In the 1930 era", "When?", "built in the 1930s") == []
    assert added_names("about 3 million", "How many?", "about 31 million") == ["3"]
    assert added_names("Sir Edward Burne-Jones", "Who?", "by Edward Burne-Jones") == []
    assert added_names("Ankara'da bulunur", "Nerede?", "Ankara'da bulunur") == []
