"""The computed state of a prompt's fixed lead, kept on disk from one process to the next.

Why: the reader's instructions and examples (about 320 tokens) and the verifier's
instructions are the same for every question, and llama.cpp keeps their computed state (the
KV cache) in a slot, so a long-running process (`crag serve`, `crag eval`) computes them once.
A `crag ask` is a new process each time, and on two CPU cores it spent about 4 s of its
first model call computing that lead again. llama.cpp can save a slot's state to a file and
restore it (`/slots/{id}?action=save|restore`), and the server reuses the part of a restored
prompt that the next request begins with. So the first call of a process whose request asks
for it (`ChatRequest.keep_prefix`) restores the state saved for the same lead, and, where none
was saved, saves its own afterwards.

What makes it safe: the file's name is a hash of everything the state depends on — the model
file (path, size, modification time), the llama.cpp build, the slot's context size, and the
text of the messages before the last one (the fixed lead). A state that does not match the
next prompt token for token is not reused past the first difference: llama.cpp compares the
tokens. Files are written under a temporary name and renamed into place, so a half-written
state is never read; a state the server refuses to restore is deleted and saved again. It is
a cache: every failure is logged (at INFO) and the call goes on as if there were none. At
most `KEEP` states are kept (the least recently used go), about 15 MB each for the 1.5B model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crag.models.llm.base import ChatRequest

__all__ = ["KEEP", "SLOT", "PromptStates", "model_identity", "state_name"]

log = logging.getLogger(__name__)

KEEP = 8  # states kept per folder: one per model and lead (reader, verifier, language)
SLOT = 0  # the slot a first call runs on, so that its state is the one saved


def model_identity(model_file: Path, build: str, ctx_per_slot: int) -> str:
    """What a state of a loaded model depends on besides its prompt: the model file (path, size,
    modification time), the llama.cpp build and the slot's context size, as one hash."""
    stat = model_file.stat()
    digest = hashlib.sha256()
    for part in (str(model_file.resolve()), str(stat.st_size), str(stat.st_mtime_ns), build,
                 str(ctx_per_slot)):  # fmt: skip
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def state_name(identity: str, request: ChatRequest) -> str:
    """The file name of the state of `request`'s fixed lead (every message but the last) on
    the model `identity` names (`model_identity`)."""
    digest = hashlib.sha256(identity.encode() + b"\0")
    for m in request.messages[:-1]:
        digest.update(m.role.encode() + b"\0" + m.content.encode() + b"\0")
    return f"prompt-{digest.hexdigest()[:32]}.bin"


class PromptStates:
    """Restores and saves slot states of one llama.cpp server in `folder`.

    `post(path, body)` sends a request to the server's HTTP endpoint and returns its JSON
    reply (injected, so the tests can drive it without a model); `identity` is the loaded
    model's (`model_identity`), computed once per server.
    """

    def __init__(
        self,
        folder: Path,
        post: Callable[[str, dict[str, Any]], dict[str, Any]],
        identity: str = "",
    ) -> None:
        self.folder = folder
        self.identity = identity
        self._post = post
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def first_use(self, name: str) -> bool:
        """True once per name and process: the call that may restore and save its state."""
        with self._lock:
            if name in self._seen:
                return False
            self._seen.add(name)
            return True

    def restore(self, name: str) -> bool:
        """Load the saved state into the slot; False where there is none or it failed."""
        path = self.folder / name
        if not path.is_file():
            return False
        try:
            reply = self._post(f"/slots/{SLOT}?action=restore", {"filename": name})
        except Exception as exc:  # a cache: the call goes on without it; the file may be fine
            log.info("prompt state %s not restored: %s", path, exc)
            return False
        if reply.get("n_restored"):
            os.utime(path)  # recently used: the last to be pruned
            return True
        # the server read it and refused it (truncated, another format): save a new one
        log.info("prompt state %s could not be restored (%s); deleting it", path, reply)
        path.unlink(missing_ok=True)
        return False

    def save(self, name: str) -> None:
        """Save the slot's state as `name` (under a temporary name first), then prune."""
        temporary = f"part-{os.getpid()}-{threading.get_ident()}-{name}"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            reply = self._post(f"/slots/{SLOT}?action=save", {"filename": temporary})
            if not reply.get("n_saved"):
                raise OSError(f"the server saved nothing: {reply}")
            os.replace(self.folder / temporary, self.folder / name)
        except Exception as exc:
            log.info("prompt state not saved in %s: %s", self.folder, exc)
            (self.folder / temporary).unlink(missing_ok=True)
            return
        self._prune()

    def _prune(self) -> None:
        """Keep the `KEEP` most recently used states (another process may prune too)."""
        try:
            states = sorted(self.folder.glob("prompt-*.bin"), key=lambda p: p.stat().st_mtime)
            for old in states[:-KEEP]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            log.info("prompt states in %s not pruned: %s", self.folder, exc)
