"""The reflector's two yes/no checks, scored exactly like the retrieval evaluator.

Self-RAG's critic asks of an answer: is each claim supported by the passage it cites
(ISSUP), and does the answer address the question (ISUSE)? crag asks the reflector model the
same way it asks the grader about passages — the probability of "Yes" from the first token's
log-probabilities, a schema-constrained JSON reply where a provider returns none, *unknown*
(NaN) after repeated unreadable replies — by subclassing `LLMJudge` with another wording.
A string search for citation markers would say nothing about whether the claim is true to
its source; a score does, and a threshold can cut it.
"""

from __future__ import annotations

from crag.grading.llm_judge import LLMJudge

__all__ = ["ClaimJudge", "UsefulnessJudge"]


class ClaimJudge(LLMJudge):
    """P(the source supports the claim). `score(claim, [source, ...])`."""

    system = "You are a careful fact checker. Reply with one word: Yes or No."
    user = (
        "Source:\n{passage}\n\nClaim: {question}\n\n"
        "Does the source state everything the claim says? Answer Yes or No."
    )
    structured_system = (
        'You are a careful fact checker. Reply with JSON only: {"answer": "yes"} or '
        '{"answer": "no"}.'
    )
    reminder = (
        'That reply could not be read. Reply with exactly {"answer": "yes"} or {"answer": "no"}: '
        "does the source state everything the claim says?"
    )
    purpose = "reflect-grounded"


class UsefulnessJudge(LLMJudge):
    """P(the answer gives what the question asks for). `score(question, [answer])`."""

    system = "You are a careful reviewer. Reply with one word: Yes or No."
    user = (
        "Question: {question}\n\nAnswer: {passage}\n\n"
        "Does the answer give the information the question asks for? Answer Yes or No."
    )
    structured_system = (
        'You are a careful reviewer. Reply with JSON only: {"answer": "yes"} or {"answer": "no"}.'
    )
    reminder = (
        'That reply could not be read. Reply with exactly {"answer": "yes"} or {"answer": "no"}: '
        "does the answer give the information the question asks for?"
    )
    purpose = "reflect-useful"
