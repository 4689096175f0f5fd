"""Generation with citations, in the language of the question."""

from crag.generate.citations import Source, check_citations, number_sources
from crag.generate.generator import Generated, Generator, refusal_text
from crag.generate.language import detect_language, language_name

__all__ = [
    "Generated",
    "Generator",
    "Source",
    "check_citations",
    "detect_language",
    "language_name",
    "number_sources",
    "refusal_text",
]
