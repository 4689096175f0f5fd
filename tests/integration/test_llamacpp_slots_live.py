"""Two slots keep two prompt leads computed (real llama.cpp, the packaged 0.5B model): after
another lead's call, a short lead's next call finds it in the slot llama.cpp chose for being
most alike — what the generator's verifier gains between two readings (the generator's
`parallel` default of 2, crag.config)."""

from __future__ import annotations

import pytest
from tests.conftest import MODELS_DIR

from crag.models.llm import ChatRequest, LlamaCppLLM
from crag.models.llm.base import Message

pytestmark = pytest.mark.slow

SHORT = "You are a careful fact checker. Reply with one word: Yes or No."
LONG = "You answer questions about cities in one word, copied from the sources. " * 20


def _ask(llm: LlamaCppLLM, lead: str, question: str) -> tuple[int, str]:
    request = ChatRequest(
        messages=(Message("system", lead), Message("user", question)),
        max_tokens=3,
        keep_prefix=True,
    )
    result = llm.chat(request)
    return result.cached_tokens or 0, result.text


def test_a_short_lead_keeps_its_computed_state_across_another_leads_call() -> None:
    two = LlamaCppLLM("qwen2.5-coder-0.5b", models_dir=MODELS_DIR, ctx_per_slot=2048,
                      parallel=2, keep_states=False)  # fmt: skip
    _ask(two, SHORT, "Passage: Rome is in Italy. Is Rome in Italy?")
    _ask(two, LONG, "Capital of France?")
    cached, text = _ask(two, SHORT, "Passage: Oslo is in Norway. Is Oslo in Spain?")
    assert cached >= 20  # the chat template's head and the fixed instructions
    # the same answer as on a server of its own (one slot, another context size)
    alone = LlamaCppLLM("qwen2.5-coder-0.5b", models_dir=MODELS_DIR, ctx_per_slot=1024,
                        parallel=1, keep_states=False)  # fmt: skip
    assert _ask(alone, SHORT, "Passage: Oslo is in Norway. Is Oslo in Spain?")[1] == text
