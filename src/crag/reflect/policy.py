"""When to reflect, where to go after a reflection, and what to hand the user at the end.

Routing follows seed 000's Self-RAG layer:

- not grounded → regenerate, naming the unsupported claims (at most `max_regenerations`);
- grounded but not useful, or an honest refusal → search the web once (if it has not run
  and is configured) and generate again;
- otherwise → finish.

`max_steps` bounds the reflection rounds whatever the routes say: a round that reaches it
finishes with the best answer so far and the `step_limit` flag — never an exception.

`when="auto"` reflects only where it is likely to pay: the verdict was AMBIGUOUS, the
generator refused although the evaluator trusted the sources, or the generator's own
confidence (`Generated.support`, its attribution check) is low. Easy questions — CORRECT
verdict, a confidently supported answer — cost nothing extra. The reason is always recorded.

Finishing turns the chosen attempt into what the user reads, honestly: unsupported claims are
dropped (an answer left with none becomes a refusal that says why), and a grounded answer
the reflector found not to address the question is prefixed with a caveat saying so — that
is how a false premise gets named rather than answered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from crag.generate.citations import check_citations
from crag.generate.generator import Generated, refusal_text
from crag.reflect.reflector import Reflection
from crag.types import Verdict

__all__ = ["ReflectPolicy", "Route", "best_attempt", "finalize"]

Route = Literal["regenerate", "web_search", "finish"]

_CAVEAT = {
    "en": "The sources do not answer this question as asked; what they say is: {text}",
    "tr": "Kaynaklar bu soruyu sorulduğu biçimiyle yanıtlamıyor; söyledikleri şu: {text}",
}
_UNGROUNDED_TR = "üretilen yanıt kaynaklarca desteklenmedi"


@dataclass(frozen=True, slots=True)
class ReflectPolicy:
    when: Literal["auto", "always"] = "auto"
    max_regenerations: int = 2
    max_steps: int = 6
    min_confidence: float = 0.8  # auto: reflect when the generator's support is below this

    def should_reflect(self, verdict: Verdict | None, generated: Generated) -> tuple[bool, str]:
        """(reflect?, why) for the first answer."""
        if generated.refused and not generated.sources:
            return False, "nothing to check: the answer is a refusal with no sources to read"
        if self.when == "always":
            return True, "reflect=always"
        if verdict is Verdict.AMBIGUOUS:
            return True, "the verdict was AMBIGUOUS"
        if generated.refused:
            return True, f"the generator refused although the verdict was {verdict}"
        if any(n.startswith("dropped a sentence") for n in generated.notes):
            return True, "the attribution check dropped part of the answer"
        if not generated.citations:
            return True, "the answer cites no source"
        if generated.support < self.min_confidence:
            return True, (
                f"low generator confidence: support {generated.support:.2f} < "
                f"{self.min_confidence:.2f}"
            )
        return False, (
            f"verdict {verdict} and generator confidence {generated.support:.2f} >= "
            f"{self.min_confidence:.2f}"
        )

    def route(
        self, r: Reflection, *, regenerations: int, web_done: bool, web_available: bool
    ) -> tuple[Route, str]:
        """Where to go after reflection `r`, and why."""
        can_search = web_available and not web_done
        if r.refusal:
            if can_search:
                return "web_search", "honest refusal: searching the web once before giving up"
            return "finish", "honest refusal"
        if not r.grounded:
            if regenerations < self.max_regenerations:
                return "regenerate", f"{len(r.unsupported)} unsupported claim(s)"
            return "finish", f"still unsupported after {regenerations} regeneration(s)"
        if not r.useful:
            if can_search:
                return "web_search", "grounded but not useful: searching the web once"
            return "finish", "grounded but not useful" + ("" if web_available else " (no web)")
        return "finish", "grounded and useful"


def _rank(attempt: tuple[Generated, Reflection], index: int) -> tuple[int, float, int]:
    _, r = attempt
    level = 2 if (r.grounded and r.useful and not r.refusal) else 1 if r.grounded else 0
    return level, r.supported_share, index  # later attempts win ties: they had feedback


def best_attempt(attempts: list[tuple[Generated, Reflection]]) -> tuple[Generated, Reflection]:
    """The best (answer, reflection) so far: grounded and useful > grounded > the rest."""
    return max(((a, i) for i, a in enumerate(attempts)), key=lambda ai: _rank(ai[0], ai[1]))[0]


def finalize(generated: Generated, r: Reflection) -> tuple[Generated, str]:
    """What the user gets from the chosen attempt, and what was done to it."""
    if r.refusal:
        return generated, "honest refusal"
    if not r.grounded:
        kept = [c for c in r.claims if c.supported is not False]
        if not any(c.score is not None for c in kept):
            # Nothing verified is left: at most sentences saying the sources lack the answer.
            honest = " ".join(c.sentence for c in kept if c.supported)
            reason = (
                _UNGROUNDED_TR
                if generated.language == "tr"
                else "the generated answer was not supported by the retrieved sources"
            )
            text = honest or refusal_text(generated.language, reason, "")
            return replace(generated, text=text, citations=[], refused=True), (
                "refused: no claim was supported"
            )
        text, citations, _ = check_citations(" ".join(c.sentence for c in kept), generated.sources)
        generated = replace(generated, text=text, citations=citations)
        return generated, f"dropped {len(r.unsupported)} unsupported claim(s)"
    if not r.useful:
        template = _CAVEAT.get(generated.language, _CAVEAT["en"])
        return replace(generated, text=template.format(text=generated.text)), (
            "caveat: grounded but not an answer to the question as asked"
        )
    return generated, "as generated"
