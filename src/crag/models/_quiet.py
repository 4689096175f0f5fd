"""transformers kept quiet: crag draws its own progress and says what went wrong itself.

Left alone, transformers draws a "Loading weights" bar for each model it loads and warns about
arguments it has renamed, on the stderr that `crag ask` shares with its answer. Call
`quiet_transformers()` before a model is loaded: the environment settings hold for a
transformers imported later, and the logging calls for one already imported. A user who sets
`TRANSFORMERS_VERBOSITY` keeps it.
"""

from __future__ import annotations

import os

__all__ = ["quiet_transformers"]


def quiet_transformers() -> None:
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        from transformers.utils import logging as hf_logging
    except Exception:  # transformers is optional for the embedders that do not use it
        return
    hf_logging.disable_progress_bar()
    if os.environ["TRANSFORMERS_VERBOSITY"] == "error":
        hf_logging.set_verbosity_error()
