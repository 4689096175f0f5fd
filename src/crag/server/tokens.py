"""The checked answer cut into deltas (and, re-exported, the draft's marker filter).

`pieces` cuts a finished answer into a few words per delta: the OpenAI chat stream sends the
checked answer only (see crag.server.routes.chat for why), and a client still sees it arrive
in pieces. `MarkerFilter` (crag.generate.marker) keeps the model's NOT_FOUND marker out of the
SSE `token` events.
"""

from __future__ import annotations

import re

from crag.generate.marker import MarkerFilter

__all__ = ["MarkerFilter", "pieces"]


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
