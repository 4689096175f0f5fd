"""A DocBook FAQ (`<div class="qandaset">`) as headed questions and their answers.

Why: DocBook's XSL writes a FAQ as a layout table: a row for each question ("1.2." | "Where does
the name "Valgrind" come from?"), the next row for its answer, a row listing the section's
questions as links, and a list of every question as links before it all. trafilatura renders
that as Markdown table rows, so each question stood three times in the text (twice as a link)
and apart from its answer: the question's own words scored its copies far above the answer
("Where does the name Valgrind come from?" read only question rows and was answered 'derived
from the French word "val"'; unfolded, "Nordic mythology"). Each question is now a heading and
its answer the section under it, as a hand-written FAQ page has it: the answer's chunks carry
their question (`crag.headings`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["unfold_qandasets"]


def unfold_qandasets(tree: Any) -> bool:
    """Rewrite every DocBook question-and-answer set of the lxml `tree` in place; whether
    there was one."""
    from lxml import html

    sets = tree.xpath('//div[contains(concat(" ", normalize-space(@class), " "), " qandaset ")]')
    for qandaset in sets:
        for links in qandaset.xpath("./dl"):  # the list of every question, as links
            qandaset.remove(links)
        for table in qandaset.xpath(".//table"):
            unfolded = html.Element("div")
            for row in table.xpath("./tr | ./tbody/tr"):
                block = _block(row)
                if block is not None:
                    unfolded.append(block)
            unfolded.tail = table.tail
            table.getparent().replace(table, unfolded)
    return bool(sets)


def _block(row: Any) -> Any:
    """What a row of the layout table stands for: a heading, an answer, or nothing."""
    from lxml import html

    kind = row.get("class", "")
    cells = row.xpath("./td")
    if kind == "qandadiv":  # a group's title: its <h3> as it is
        heads = row.xpath(".//h1 | .//h2 | .//h3 | .//h4 | .//h5 | .//h6")
        return heads[0] if heads else None
    if kind == "question":  # "1.2." | the question: one heading
        heading = html.Element("h4")
        heading.text = " ".join(" ".join(cell.text_content().split()) for cell in cells).strip()
        return heading if heading.text else None
    if kind == "answer" and cells:  # the answer's cell, its paragraphs as they are
        answer = html.Element("div")
        for child in list(cells[-1]):
            answer.append(child)
        answer.text = cells[-1].text
        return answer
    return None  # the group's question links ("toc") and the spacer rows
