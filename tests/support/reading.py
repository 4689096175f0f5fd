"""What the reading tests share: passages, scripted readers, and two sections of a manual."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tests.support.strips import strips

from crag.models.llm.base import ChatRequest, ChatResult
from crag.types import Strip

SUPER_BOWL = (
    "California last hosted the Super Bowl in 2003, at Qualcomm Stadium in San Diego. "
    "The Rose Bowl in Pasadena had been the venue in 1993."
)

BRONCOS = (
    "The Broncos beat the Pittsburgh Steelers in the divisional round and the New England "
    "Patriots in the AFC Championship Game. They then defeated the Carolina Panthers in "
    "Super Bowl 50."
)


@dataclass
class ByPromptLLM:
    """Replies by what the prompt holds: the reading of all sources, or of one alone."""

    together: str
    alone: dict[str, str]
    name: str = "scripted"
    calls: list[ChatRequest] = field(default_factory=list)

    def chat(self, request: ChatRequest) -> ChatResult:
        self.calls.append(request)
        prompt = request.messages[-1].content
        if request.purpose == "generate-alone":
            key = next(k for k in self.alone if k in prompt)
            return ChatResult(text=self.alone[key], finish_reason="stop")
        return ChatResult(text=self.together, finish_reason="stop")


NFC = "The Carolina Panthers beat the Arizona Cardinals in the NFC Championship Game."

CHICAGO = (
    "The University of Chicago has four academic research divisions and seven professional "
    "schools. It enrolled 5,000 students in 1900."
)

VIM_BACKUP = "The name of the backup file is the original file with a ~ added to the end."

VIM_REPEAT = (
    'The "." command is one of the simplest yet powerful commands. It repeats the last change.'
)


def sections() -> list[Strip]:
    """Two chunks of one manual that name their function only in their section's heading."""
    found = strips("Tells the kernel to join a multicast group at the given address.",
                   "Tells the kernel to leave a multicast group at the given address.")  # fmt: skip
    heads = ["socket.addMembership(multicastAddress)", "socket.dropMembership(multicastAddress)"]
    return [
        replace(s, chunk=replace(s.chunk, title="UDP/datagram sockets", metadata={"heading": h}))
        for s, h in zip(found, heads, strict=True)
    ]


@dataclass
class ScriptedLLM:
    """Replies with a fixed text: what a small generator was seen to write."""

    reply: str
    name: str = "scripted"
    calls: list[ChatRequest] = field(default_factory=list)

    def chat(self, request: ChatRequest) -> ChatResult:
        self.calls.append(request)
        return ChatResult(text=self.reply, finish_reason="stop")


MOON = (
    "Neil Armstrong was the first person to walk on the Moon.",
    "Buzz Aldrin was the second person to walk on it, in July 1969.",
)
