"""The answer check's last question to a model: does the passage state this answer?

When the retrieval evaluator was not sure (AMBIGUOUS) or the answer comes from the web, the
passage holding the short answer is shown to the generator's own model with the question and
the answer, and the probability of "Yes" is read from the first token's log-probabilities —
the same scoring, fallbacks and *unknown* handling as the LLM judge (`crag.grading`). A short
answer copied from a same-topic passage ("General Electric" from a paragraph about Tesla's
patents) is found in its source but not stated there as the answer; this catches it. The
call is short (one strip and one line) and made only for answers that need it.
"""

from __future__ import annotations

from crag.grading.llm_judge import LLMJudge

__all__ = ["AnswerJudge"]


class AnswerJudge(LLMJudge):
    """P(the passage states that the answer answers the question).

    `score(f"{question}\\nAnswer: {answer}", [passage])`: the question line carries the answer.
    """

    system = "You are a careful fact checker. Reply with one word: Yes or No."
    user = (
        "Passage:\n{passage}\n\nQuestion: {question}\n\n"
        "Does the passage state that this is the answer to the question? Answer Yes or No."
    )
    structured_system = (
        'You are a careful fact checker. Reply with JSON only: {"answer": "yes"} or '
        '{"answer": "no"}.'
    )
    reminder = (
        'That reply could not be read. Reply with exactly {"answer": "yes"} or {"answer": "no"}: '
        "does the passage state that this is the answer to the question?"
    )
    purpose = "verify"
