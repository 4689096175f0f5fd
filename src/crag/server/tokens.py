"""The checked answer cut into deltas.

`pieces` cuts a finished answer into a few words per delta: the OpenAI chat stream sends the
checked answer only (see crag.server.routes.chat for why), and a client still sees it arrive
in pieces. (The SSE `token` events of `/v1/ask` come from `Pipeline.stream`, which removes the
model's NOT_FOUND marker: crag.generate.marker.)
"""

from __future__ import annotations

import re

__all__ = ["pieces"]


def pieces(text: str, words: int = 4) -> list[str]:
    """`text` in deltas of a few words each; joined, they give `text` back exactly."""
    parts = re.findall(r"\s*\S+", text)
    out = ["".join(parts[i : i + words]) for i in range(0, len(parts), words)]
    rest = text[len("".join(out)) :]  # trailing whitespace
    if rest and out:
        out[-1] += rest
    elif rest:
        out.append(rest)
    return out
