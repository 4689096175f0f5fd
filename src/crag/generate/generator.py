"""Generation: an answer in the question's language where every claim cites `[n]`.

The generator sees only numbered sources (the refined strips, grouped by chunk) and is told to
give the short answer first, cite it, and reply with a fixed marker when they do not hold the
answer (the prompt: `crag.generate.prompt`). What it writes is an answer only once the answer
check (`crag.generate.answer_check`) has found the source that holds it; the model's `[n]` is a
hint, and its NOT_FOUND is checked again when the evaluator was confident. Source text is
framed as quoted data: each source is one line (whitespace collapsed, so a page cannot start a
fake "Question:" line of its own), and the model is told and shown never to follow instructions
inside a source. The marker, not free-text guessing, is what turns into a refusal, and the
refusal text is ours (in the question's language), naming why. With nothing to read at all
(INCORRECT and no web search) the model is not called: crag refuses and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from crag.generate.answer_check import VERIFY_CUT, Checked, Verification, check_answer
from crag.generate.choice import NOT_IN_SOURCES, choose
from crag.generate.citations import MARK, Source, has_words, number_sources
from crag.generate.code_reading import read_as_code, read_first_as_code, sure_only
from crag.generate.declined import declined, without_marker
from crag.generate.generated import Generated
from crag.generate.language import detect_language, language_name
from crag.generate.prompt import FEEDBACK, NOT_FOUND, SECOND_LOOK, reading_request
from crag.generate.quote import STOP, Explain, close_draft, close_marker
from crag.generate.reader import Reading, best_sources, candidates
from crag.generate.refusal import refusal_text
from crag.models.llm.base import LLM, ChatRequest, stream_chat
from crag.types import Strip

__all__ = ["NOT_FOUND", "Generated", "Generator", "refusal_text"]

Verify = Callable[[str, str, str], float]  # (question, short answer, passage) -> P(yes)


@dataclass(frozen=True, slots=True)
class _Verifying:
    """What the answer check verifies: every answer (`every`), or only one that no source
    holds as written (`crag.generate.answer_check`)."""

    verify: Verify
    every: bool


@dataclass(slots=True)
class Generator:
    llm: LLM
    max_tokens: int = 320
    # "quote": the reading stops after the short answer's citation and the explanation is the
    # cited source's own sentence (crag.generate.quote); "model": the model writes it.
    explain: Explain = "quote"
    temperature: float = 0.0
    min_support: float = 0.5  # share of a sentence's new content words found in its sources
    # Asked when the evaluator was not sure: does the passage state the answer? (AnswerJudge)
    verifier: Any = None
    verify_cut: float = VERIFY_CUT  # P(yes) a verified answer must reach
    # Verify every answer under a CORRECT verdict too: the evaluator judged the passages, not
    # the span the reader took from them (off: only an answer no passage holds as written).
    verify_correct: bool = False
    # crag's readings: the best `read_alone` sources are also read one at a time, and the
    # candidate whose source ties it closer to the question replaces the reading of all
    # (crag.generate.reader); a reading alone counts only from `align_floor` up.
    read_alone: int = 1
    align_floor: float = 0.15
    # A reading of the best source alone also wins a near tie (within this much alignment)
    # against an answer the reading of all sources took from another source.
    prefer_best: float = 0.05
    # Stricter, off by default: when the evaluator was not sure, refuse an answer only the
    # reading of all sources gave, the best sources read alone having declined.
    corroborate: bool = False
    # crag modes: when the reading of all sources answers, read the sources again framed as
    # code and take that reply's span (crag.generate.code_reading); the prose reading still
    # decides whether to answer at all.
    code_span: bool = False
    # crag modes, "code": the reading of all sources is the coded one (English questions), and
    # its span stands only where every token of it was `code_sure` probable (code_reading).
    reading: Literal["prose", "code"] = "prose"
    code_sure: float = 0.3

    def generate(
        self,
        question: str,
        strips: list[Strip],
        *,
        refuse_reason: str = "",
        on_token: Callable[[str], None] | None = None,
        feedback: str = "",
        confident: bool = False,
        evidence_floor: float | None = None,
        reread: bool = False,
        titled: bool = False,
    ) -> Generated:
        """Answer `question` from `strips`.

        `confident` (the evaluator said CORRECT) gives a NOT_FOUND reply one more look at the
        best source alone: the decision to refuse rests on the evaluator and the answer check,
        not on a small model's NOT_FOUND alone. `evidence_floor` (the evaluator was not sure)
        is the score the passage holding the answer must reach. `feedback` names claims of an
        earlier answer that were found unsupported (Self-RAG's regenerate step). `reread`
        (crag's modes; plain RAG reads once) adds the readings of the best sources alone.
        `titled`: each source is shown with its document's title (`crag.titles`)."""
        language = detect_language(question)
        sources = number_sources(strips, titled)
        if not sources:
            reason = refuse_reason or "no indexed passage answers this question"
            return Generated(
                refusal_text(language, reason, "no_sources"), [], True, language, sources
            )
        extra = FEEDBACK.format(claims=feedback) if feedback else ""
        verify = self._verifies(evidence_floor, confident)
        rereading = reread and self.read_alone > 0
        if reread and self._coded(extra, language):
            main, finish = read_first_as_code(self.llm, question, sources, self.temperature,
                                              on_token)  # fmt: skip
            return self._reread(question, main, sources, strips, language, extra, [],
                                evidence_floor, verify, finish)  # fmt: skip
        request = self._request(question, sources, language, extra, logprobs=rereading)
        result = stream_chat(self.llm, request, on_token)
        raw = self._reply(result.text)
        if on_token is not None:
            close_draft(result.text, raw, on_token)
        notes: list[str] = []
        if rereading:
            main = Reading(raw, "all", 0, result.token_logprobs)
            return self._reread(question, main, sources, strips, language, extra, notes,
                                evidence_floor, verify, result.finish_reason)  # fmt: skip
        if confident and declined(raw, sources):
            best = best_sources(strips, sources, 1)[0]
            notes.append(f"the model declined; a second look at source [{best.n}] alone")
            alone = [replace(best, n=1)]
            second = self.llm.chat(
                self._request(question, alone, language, SECOND_LOOK, "generate-second-look")
            )
            raw = MARK.sub(f"[{best.n}]", self._reply(second.text))
        if not has_words(raw):  # "" or only markers/punctuation ("[3]"): nothing was said
            return self._refuse(language, sources, "the model returned an empty answer",
                                [*notes, "generator returned empty output"])  # fmt: skip
        if declined(raw, sources):
            return self._refuse(language, sources, NOT_IN_SOURCES, notes)
        checked = self._check(raw, question, sources, strips, language, evidence_floor, verify)
        notes += checked.notes
        asked = [checked.verified] if checked.verified else []
        if checked.reason:
            out = self._refuse(language, sources, checked.reason, notes)
        else:
            if result.finish_reason == "length":
                notes.append(f"answer cut at max_tokens={self.max_tokens}")
            out = Generated(
                checked.text, checked.citations, False, language, sources, notes, checked.support
            )
        out.verifications = asked
        return out

    def _reread(
        self,
        question: str,
        main: Reading,
        sources: list[Source],
        strips: list[Strip],
        language: str,
        extra: str,
        notes: list[str],
        evidence_floor: float | None,
        verify: _Verifying | None,
        finish_reason: str | None,
    ) -> Generated:
        """The reading of all sources and of the best ones alone: the best-tied candidate that
        passes the answer check is the answer (crag.generate.reader, crag.generate.choice)."""
        together = [main] if not declined(main.reply, sources) else []
        coded = self._coded(extra, language)  # `main` is the coded reading (generate)
        if together and self.code_span and not extra and not coded:
            together = [read_as_code(self.llm, question, sources, main, notes, self.temperature)]
        found = candidates(together, question, sources, notes)
        if coded:
            found = sure_only(found, self.code_sure, notes)
        # The readings alone are for answers copied from the wrong source: the source the
        # reading of all sources tied its answer in (0: tied nowhere) is not read again (on
        # 43 tuning questions this changed no answer and saved 15 of 39 readings alone).
        held = found[0].source if found else 0
        best = best_sources(strips, sources, self.read_alone if len(sources) > 1 else 0)
        alone: list[Reading] = []
        read: list[int] = []  # the sources read alone
        for src in best:
            if src.n == held:
                notes.append(f"source [{src.n}] holds the answer of the reading of all sources: "
                             "not read again alone")  # fmt: skip
                continue
            read.append(src.n)
            if (reading := self._read_alone(question, src, language, extra)) is not None:
                alone.append(reading)
        found += candidates(alone, question, sources, notes)
        asked: list[Verification] = []
        choice = choose(
            found,
            lambda reply: self._check(
                reply, question, sources, strips, language, evidence_floor, verify
            ),
            notes,
            asked,
            read=bool(read),
            unsure=evidence_floor is not None,  # the evaluator did not say CORRECT
            corroborate=self.corroborate,
            align_floor=self.align_floor,
            prefer_best=self.prefer_best,
        )
        if (checked := choice.checked) is None or choice.candidate is None:
            out = self._refuse(language, sources, choice.reason, notes)
        else:
            if finish_reason == "length" and choice.candidate.reading == "all":
                notes.append(f"answer cut at max_tokens={self.max_tokens}")
            out = Generated(checked.text, checked.citations, False, language, sources, notes,
                            checked.support)  # fmt: skip
        out.candidates, out.read_alone, out.verifications = found, read, asked
        return out

    def _read_alone(self, question: str, src: Source, language: str, extra: str) -> Reading | None:
        """The reading of `src` alone, its reply citing `src.n`; None when it declined."""
        alone = [replace(src, n=1)]
        request = self._request(question, alone, language, extra, "generate-alone", True)
        result = self.llm.chat(request)
        reply = self._reply(result.text)
        if declined(reply, alone):
            return None
        return Reading(MARK.sub(f"[{src.n}]", reply), f"alone [{src.n}]", src.n,
                       result.token_logprobs)  # fmt: skip

    def _check(
        self,
        reply: str,
        question: str,
        sources: list[Source],
        strips: list[Strip],
        language: str,
        evidence_floor: float | None,
        verify: _Verifying | None,
    ) -> Checked:
        """The answer check of one reply (its NOT_FOUND marker removed) with this generator's
        support and cut."""
        return check_answer(
            without_marker(reply),
            question,
            sources,
            strips,
            language,
            min_support=self.min_support,
            evidence_floor=evidence_floor,
            verify=verify.verify if verify is not None else None,
            verify_cut=self.verify_cut,
            quote=self.explain == "quote",
            verify_found=verify is None or verify.every,
        )

    def _coded(self, extra: str, language: str) -> bool:
        """The reading of all sources is framed as code: `reading = "code"`, not a Self-RAG
        retry (its feedback is prose), and an English question (the certainty cut was
        measured on English questions only; other languages read prose)."""
        return self.reading == "code" and not extra and language == "en"

    def _reply(self, text: str) -> str:
        """A reply as the answer check reads it: a citation the stop cut off closed again."""
        return close_marker(text) if self.explain == "quote" else text.strip()

    def _verifies(self, evidence_floor: float | None, confident: bool) -> _Verifying | None:
        """The verification the answer check asks, if any: of every answer when the evaluator
        was not sure (`evidence_floor` set) or, with `verify_correct`, when it said CORRECT
        (`confident`); otherwise, at CORRECT, of an answer no source holds as written. Plain
        RAG (neither) is not verified."""
        if self.verifier is None or (evidence_floor is None and not confident):
            return None
        every = evidence_floor is not None or self.verify_correct
        return _Verifying(self._verify, every)

    def _verify(self, question: str, answer: str, passage: str) -> float:
        return float(self.verifier.score(f"{question.strip()}\nAnswer: {answer}", [passage])[0])

    def _request(
        self,
        question: str,
        sources: list[Source],
        language: str,
        extra: str = "",
        purpose: str = "generate",
        logprobs: bool = False,  # crag's readings: how sure the model was of its short answer
    ) -> ChatRequest:
        return reading_request(
            question, sources, language_name(language), extra, purpose=purpose,
            max_tokens=self.max_tokens, temperature=self.temperature, logprobs=logprobs,
            stop=STOP if self.explain == "quote" else (),
        )  # fmt: skip

    @staticmethod
    def _refuse(language: str, sources: list[Source], reason: str, notes: list[str]) -> Generated:
        return Generated(
            refusal_text(language, reason, "model"), [], True, language, sources, notes
        )
