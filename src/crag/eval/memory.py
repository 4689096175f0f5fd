"""Whether a process per mode fits in the memory the machine has free.

Why: `crag eval` asks each mode in a process of its own (`crag.eval.processes`), and each loads
the models again: with the packaged llama.cpp models a mode's process held 1.6–1.8 GB of its own
(the model files, 1.3 GB, are mapped and shared). On a machine with little memory free, the
second process could be killed by the kernel's out-of-memory killer in the middle of a run. So
before it starts them, `crag eval` compares what they need with what /proc/meminfo says is
available, and where they would not fit it asks every mode in one process instead — the models
loaded once, the latencies no longer comparable between modes, which the report then says —
and says why. The figures are estimates, measured on this project's machine; a machine
that reports no `MemAvailable` (not Linux) is not checked.
"""

from __future__ import annotations

from pathlib import Path

from crag.config import Settings

__all__ = ["MODE_PROCESS_MB", "SHARED_MODELS_MB", "available_mb", "needed_mb", "too_little_memory"]

# What one mode's process holds of its own: with a packaged (llama.cpp) model in it, and with
# every language model served elsewhere (the embedder and the cross-encoder alone).
MODE_PROCESS_MB = {"local": 1800, "remote": 700}
# The packaged model files, mapped by every process and held once.
SHARED_MODELS_MB = 1300


def available_mb(meminfo: Path = Path("/proc/meminfo")) -> float | None:
    """The memory the kernel says a new process can have without swapping, in MB; None where
    it does not say."""
    try:
        lines = meminfo.read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == "MemAvailable" and value.split():
            return int(value.split()[0]) / 1024  # kB
    return None


def _local(settings: Settings) -> bool:
    """Whether any language model of the run is a packaged one, loaded in the process."""
    llm = settings.llm
    return any(role.provider == "local" for role in (llm.grader, llm.generator))


def needed_mb(settings: Settings, processes: int) -> float:
    """About what `processes` mode processes need for the run's models, in MB."""
    local = _local(settings)
    own = MODE_PROCESS_MB["local" if local else "remote"]
    return processes * own + (SHARED_MODELS_MB if local else 0)


def too_little_memory(settings: Settings, modes: int, available: float | None) -> str | None:
    """Why a process per mode would not fit (a sentence for the user), or None when it fits or
    the machine does not say how much memory is free."""
    if available is None or modes < 2:
        return None
    need = needed_mb(settings, modes)
    if available >= need:
        return None
    return (
        f"a process per mode needs about {need / 1024:.1f} GB and {available / 1024:.1f} GB "
        "of memory is available: the modes are asked in one process (their latencies then "
        "do not compare)"
    )
