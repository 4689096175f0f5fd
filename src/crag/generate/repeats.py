"""Replies that name no answer: a short answer that only repeats the question, or copies a
source's label.

Why: the small reader, asked "What kind of curriculum is most likely followed?", may answer
"curriculum"; asked about a passage titled "R-intro › 1 Introduction …", it may answer with the
title. Such a reply says nothing the reader was not shown as the question or the label, so it
is no candidate (`crag.generate.reader.candidates`). But a name to type often is spelled by the
question's words: a command-line option ("--ignore-case"), a value a source quotes as code
("'connection'" for "… when a new connection is made"), a method a source declares or calls
("entry" for "Which HashMap method gets a key's entry …?", `pub fn entry(…)`). Those are
answers — unless the question writes that same name as code itself ("VecDeque" for "What data
structure is VecDeque implemented with?") or names it by what it is ("the move keyword").
"""

from __future__ import annotations

import re

from crag.generate.citations import Source
from crag.generate.matching import option_in
from crag.refine.rewrite_check import content_forms
from crag.symbols import symbols
from crag.titles import SEPARATOR

__all__ = ["copies_label", "names_nothing", "repeats_question"]

# A question that offers its own choices ("Paris or Lyon?", "… mi yoksa …", "between EU law
# and national law, which …", "AB hukuku ile ulusal hukuk arasında … hangi …") is answered
# with its own words.
_CHOICE = re.compile(r"\b(?:or|yoksa|veya|ya da)\b", re.IGNORECASE)
# two named things: "between X and Y", "X ile Y arasında"
_BETWEEN = re.compile(r"\bbetween\b.+\band\b|\bile\b.+\barasında\b", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|hangi\w*)\b", re.IGNORECASE)
# A command-line option ("--ignore-case" for "How do I make grep ignore case?") names the
# thing to type, which the question's words do not: it is an answer even in their words —
# unless the question names that option itself ("What does -R do?" answered "-R").
_OPTION = re.compile(r"--?[^\W\d_]")
# a name as code writes it: words joined by "." or "_", a letter among them ("url.username",
# "SCHED_RR"; not "3.5")
# (or called, as a signature writes it: "contextlib.suppress(*exceptions)")
_CODE_NAME = re.compile(r"(?=.*[^\W\d_])(?P<name>\w+(?:[._]\w+)+)(?:\([^()]*\))?")
# Likewise a quoted literal: "'connection'" for "Which event does a net.Server emit when a new
# connection is made?", "'.html'" for "What does path.extname('index.html') return?" — the
# value to type, in quotes as the documentation writes it; it repeats the question only where
# the question quotes that same value.
_QUOTES = "'\"`‘’“”"
# ... unless the question names that literal by what it is ("What does the move keyword do?",
# "the `?` operator", "the from function"): then it asks about the literal, and the literal is
# no answer (the Rust book's "move" for the move keyword).
_KINDS = (
    r"(?:keyword|operator|function|method|macro|trait|type|attribute|option|flag|command|"
    r"module|class|property|field|variable|constant|parameter|argument)s?"
)


def repeats_question(short: str, question: str) -> bool:
    """The short answer says nothing the question did not: all its content words are the
    question's ("curriculum" for "What kind of curriculum …", "Budapest" for "In Budapest,
    where did Tesla work?"). Such a reply names no answer, so it is no candidate — unless the
    question offers choices, or the answer is a command-line option or a quoted literal the
    question neither quotes nor names by what it is ("the `?` operator"), or holds a symbol
    the question does not write ('The "." command' for "Which command repeats the last
    change?": `crag.symbols`), or is a name joined by dots or underscores that the question
    does not write ("url.username" for "Which URL property gets and sets the username portion
    of the URL?", where the section's heading is the property's only name: its words are the
    question's, the name is not), alone or as its signature writes it
    ("contextlib.suppress(*exceptions)" for "Which contextlib context manager suppresses the
    specified exceptions …?"). A short answer of function words only ("Yes") is not judged."""
    if _OPTION.match(short):
        return option_in(short, question)
    if (literal := _quoted(short)) is not None:
        q = re.escape(_QUOTES)
        quoted = re.search(rf"[{q}]{re.escape(literal)}[{q}]", question) is not None
        return quoted or _named_in(literal, question) or _written_as_code_in(literal, question)
    if set(symbols(short)) - set(symbols(question)):
        return False
    code = _CODE_NAME.fullmatch(short.strip())
    if code and code["name"].casefold() not in question.casefold():
        return False  # "url.username" for "Which URL property … the username …?": a name to type
    said = content_forms(short)
    return bool(said) and said <= content_forms(question) and not _offers_choices(question)


def copies_label(short: str, sources: list[Source]) -> bool:
    """The short answer is a source's label, or a run of it across a " › ": the document
    title and section path crag showed before the source (`crag.titles`), which names where
    the text stands, not what it says. The 1.5B reader answered "In which file are the
    objects of the workspace saved …?" with "R-intro › 1 Introduction and preliminaries ›
    Data permanency and removing objects" (and the verification gave it P(yes) 0.71). A short
    answer that some source's text also writes is left alone."""
    said = _squeezed(short).strip(" .()")
    if SEPARATOR.strip() not in said:
        return False
    labelled = any(said in _squeezed(s.label) for s in sources if s.label)
    return labelled and not any(said in _squeezed(s.text) for s in sources)


def _squeezed(text: str) -> str:
    return " ".join(text.split()).casefold()


def _quoted(short: str) -> str | None:
    """The value of a short answer written as a quoted literal ("'close'", "`.html`"), else
    None."""
    text = short.strip()
    if len(text) > 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        inner = text.strip(_QUOTES).strip()
        return inner or None
    return None


def _literal_in(short: str, sources: list[Source]) -> bool:
    """A source writes the short answer as a code literal, in single quotes or backticks
    ("Event: 'connection'"): the model wrote the value without its quotes, and it is a value
    to type, not the question's word "connection". Double quotes are prose quoting and do not
    count."""
    if not short.strip():
        return False
    pattern = re.compile(rf"[`'‘]{re.escape(short.strip())}[`'’]")
    return any(pattern.search(s.findable) for s in sources)


def _asks_for_name(question: str) -> bool:
    """The question asks for a name by what it is: "Which HashMap method …", "What option …"."""
    pattern = rf"\b(?:which|what)(?:\s+[\w:.]+){{0,2}}?\s+{_KINDS}\b"
    return re.search(pattern, question, re.IGNORECASE) is not None


def _called_in(short: str, sources: list[Source]) -> bool:
    """A source writes the short answer, one identifier, as code calls or declares it:
    `pub fn entry(&mut self, key: K)`, `map.entry(key)`, `retain<F>(…)`. Then "entry" for
    "Which HashMap method gets a key's entry for in-place manipulation?" is the method's name,
    which the question's word "entry" only happens to spell."""
    name = short.strip()
    if not re.fullmatch(r"[^\W\d]\w*", name):
        return False
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?:<[^<>()]*>)?\(")
    return any(pattern.search(s.findable) for s in sources)


def _written_as_code_in(short: str, question: str) -> bool:
    """The question itself writes the short answer, as it is spelled, as a name: with a
    capital ("Rc", "VecDeque") or joined by "_", "." or "::" ("What data structure is
    VecDeque implemented with?" answered "VecDeque", which a source writes as `VecDeque`). Such
    an answer repeats the question, even where a source quotes it as a literal; a plain word in
    lower case does not count ("connection" for "… when a new connection is made", written
    'connection' as the event's name)."""
    name = short.strip(_QUOTES + " ")
    code = re.search(r"[A-Z]|\w(?:_|::|\.)\w", name) is not None
    return code and re.search(rf"(?<![\w.:]){re.escape(name)}(?![\w])", question) is not None


def _named_in(short: str, question: str) -> bool:
    """The question names `short` by what it is: "the move keyword", "the `?` operator"."""
    value = re.escape(short.strip(_QUOTES + " "))
    q = re.escape(_QUOTES)
    pattern = rf"(?<![\w-])[{q}]?{value}[{q}]?\s+{_KINDS}\b"
    return bool(value) and re.search(pattern, question, re.IGNORECASE) is not None


def _offers_choices(question: str) -> bool:
    """ "… or …", or "which" with "between" (a choice between two things the question names)."""
    return bool(_CHOICE.search(question)) or bool(
        _BETWEEN.search(question) and _WHICH.search(question)
    )


def _a_name_to_type(short: str, question: str, sources: list[Source]) -> bool:
    """The question's words name, as a source writes it, a value or name to type: a literal
    the source quotes as code, or a method it declares or calls where the question asks for
    one — unless the question names it by what it is or writes it as code itself. Asked only
    of a short answer that repeats the question: it scans every source."""
    code = _literal_in(short, sources) or (_asks_for_name(question) and _called_in(short, sources))
    return code and not (_named_in(short, question) or _written_as_code_in(short, question))


def names_nothing(short: str, question: str, sources: list[Source]) -> str | None:
    """Why the short answer names no answer ("only repeats the question", "is a source's
    label"), or None when it may be one."""
    if repeats_question(short, question) and not _a_name_to_type(short, question, sources):
        return "only repeats the question"
    if copies_label(short, sources):
        return "is a source's label"
    return None
