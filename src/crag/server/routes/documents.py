"""Documents: upload for ingestion (a background job with progress), list, remove.

`POST /v1/documents` takes either a multipart form with one or more files (field `files` or
`file`), or a JSONL body (`Content-Type: application/jsonl` or `application/x-ndjson`, one
`{"id", "text", "title"?, "url"?}` record a line) with an optional `?source=NAME`. It answers
202 with the job; `GET /v1/documents/jobs/{id}` reports its progress and result.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from starlette.datastructures import UploadFile

from crag.errors import CragError, LoaderError
from crag.server.deps import RuntimeDep, require_key
from crag.server.errors import Conflict
from crag.server.jobs import Job, Upload
from crag.server.runtime import Runtime
from crag.server.schemas import JobOut, SourceOut, SourcesOut, UrlsIn
from crag.server.uploads import check_supported, check_upload, source_name, spool_path

__all__ = ["router"]

router = APIRouter(prefix="/v1/documents", tags=["documents"], dependencies=[Depends(require_key)])

JSONL_TYPES = {"application/jsonl", "application/x-ndjson", "application/x-jsonlines",
               "application/jsonlines", "application/json-lines"}  # fmt: skip
MAX_FILES = 100
DELETE_WAIT_S = 30.0
CANCEL_WAIT_S = 10.0

UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}}
                    },
                }
            },
            "application/jsonl": {
                "schema": {"type": "string", "description": "one JSON record per line"}
            },
        },
    }
}


def _folder(rt: Runtime) -> Path:
    return rt.settings.data_dir / "uploads" / rt.settings.collection


def _accepted(job: Job) -> JSONResponse:
    return JSONResponse(
        job.to_dict(), status_code=202, headers={"Location": f"/v1/documents/jobs/{job.id}"}
    )


async def _spool_files(request: Request, rt: Runtime) -> list[Upload]:
    uploads: list[Upload] = []
    try:
        async with request.form(max_files=MAX_FILES, max_fields=10) as form:
            fields = [v for k, v in form.multi_items() if k in ("files", "file")]
            files = [f for f in fields if isinstance(f, UploadFile)]
            if not files:
                raise CragError("files: no file in the form; send them as field 'files'")
            for f in files:
                name = source_name(f.filename)
                check_supported(name)
                if any(u.source == name for u in uploads):
                    raise CragError(f"files: two files named {name!r} in one upload")
                path = spool_path(_folder(rt), name)
                uploads.append(Upload(source=name, path=path, original=(f.filename or "")[:500]))
                await asyncio.to_thread(_copy, f, path)
                limit = int(rt.settings.ingest.max_file_mb * 1e6)
                await asyncio.to_thread(
                    check_upload,
                    path,
                    name,
                    limit,
                    detect_encoding=rt.settings.ingest.detect_encoding,
                    encoding=rt.settings.ingest.encoding,
                )
    except BaseException:
        for u in uploads:
            u.path.unlink(missing_ok=True)
        raise
    return uploads


def _copy(upload: UploadFile, path: Path) -> None:
    upload.file.seek(0)
    with path.open("wb") as out:
        shutil.copyfileobj(upload.file, out, 1 << 20)


def _check_jsonl(path: Path, name: str) -> None:
    """Load the body now: a malformed JSONL body is a bad request, not a failed job."""
    from crag.ingest.loaders import load_bytes

    try:
        load_bytes(Path(name), path.read_bytes())
    except LoaderError as exc:
        raise CragError(f"body: {exc.reason}") from None


async def _spool_jsonl(request: Request, rt: Runtime, source: str | None) -> list[Upload]:
    path = spool_path(_folder(rt), "body.jsonl")
    try:
        digest = hashlib.sha256()
        with path.open("wb") as out:
            async for block in request.stream():
                digest.update(block)
                out.write(block)
        name = source_name(source) if source else f"body-{digest.hexdigest()[:16]}.jsonl"
        if not name.lower().endswith((".jsonl", ".ndjson")):
            name += ".jsonl"
        await asyncio.to_thread(_check_jsonl, path, name)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return [Upload(source=name, path=path, original=source or "")]


@router.post(
    "",
    status_code=202,
    response_model=JobOut,
    openapi_extra=UPLOAD_BODY,
    responses={
        400: {"description": "Empty, binary, truncated or corrupt: what the bytes show."},
        413: {
            "description": "Over server.max_upload_mb, or a compressed file (any member) "
            "inflating past ingest.max_file_mb."
        },
        415: {"description": "Not multipart or JSONL, or a file type crag cannot read."},
        503: {"description": "Too many ingestion jobs waiting; retry after Retry-After."},
    },
)
async def upload(
    request: Request,
    rt: RuntimeDep,
    source: Annotated[str | None, Query(description="Source name for a JSONL body.")] = None,
) -> Any:
    """Queue files (multipart) or JSONL records (body) for ingestion; returns the job."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        uploads = await _spool_files(request, rt)
    elif ctype in JSONL_TYPES:
        uploads = await _spool_jsonl(request, rt, source)
    else:
        raise HTTPException(
            415,
            f"content type {ctype or '(none)'!r}: send multipart/form-data with files, "
            "or a JSONL body as application/jsonl",
        )
    job = Job(id=rt.jobs.new_id(), kind="ingest", uploads=uploads)
    try:
        rt.jobs.submit(job)
    except BaseException:
        for u in uploads:
            u.path.unlink(missing_ok=True)
        raise
    return _accepted(job)


@router.post(
    "/urls",
    status_code=202,
    response_model=JobOut,
    responses={503: {"description": "Too many ingestion jobs waiting; retry after Retry-After."}},
)
async def ingest_urls(body: UrlsIn, rt: RuntimeDep) -> Any:
    """Queue web pages for ingestion (fetched by the job, under the SSRF rules of `web.*`;
    indexed and cited under their URL); returns the job. docs/ingest-web.md."""
    from crag.ingest.crawl import is_url
    from crag.ingest.metadata import parse_tags

    for i, url in enumerate(body.urls):
        if not is_url(url.strip()):
            raise CragError(f"urls[{i}]: {url[:200]!r} is not an http(s) URL")
    parse_tags(f"{k}={v}" for k, v in body.tags.items())  # same key rules as --tag
    options = {
        "refresh": body.refresh,
        "depth": body.crawl_depth,
        "same_site": body.same_site,
        "max_pages": body.max_pages,
        "max_bytes": body.max_bytes,
    }
    job = Job(
        id=rt.jobs.new_id(),
        kind="ingest",
        urls=[u.strip() for u in body.urls],
        url_options=options,
        tags=dict(body.tags),
    )
    rt.jobs.submit(job)
    return _accepted(job)


@router.get("/jobs/{job_id}", response_model=JobOut)
def job_status(job_id: str, rt: RuntimeDep) -> Any:
    """Progress and result of an ingestion or removal job."""
    job = rt.jobs.get(job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id!r} (the newest finished jobs are kept)")
    return job.to_dict()


@router.delete(
    "/jobs/{job_id}",
    response_model=JobOut,
    responses={
        202: {"description": "Cancelling: the running job stops at its next file or batch."},
        404: {"description": "No such job."},
    },
)
async def cancel_job(job_id: str, rt: RuntimeDep) -> Any:
    """Cancel a job: a queued one ends at once, a running one at its next file or embedding
    batch (files already written stay indexed; the stores are repaired). A finished job is
    returned as it is."""
    job = rt.jobs.cancel(job_id, "cancelled by DELETE /v1/documents/jobs/{id}")
    if job is None:
        raise HTTPException(404, f"no job {job_id!r}")
    deadline = asyncio.get_running_loop().time() + CANCEL_WAIT_S
    while not job.done_event.is_set() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    if not job.done_event.is_set():
        return _accepted(job)
    return job.to_dict()


@router.get("", response_model=SourcesOut)
def list_sources(
    rt: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=10000)] = 1000,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Any:
    """Indexed sources with their chunk counts (uploads by their file name, files ingested
    with `crag ingest` by their path)."""
    infos = sorted(rt.index.sources(), key=lambda s: s.source)
    page = infos[offset : offset + limit]
    return SourcesOut(
        collection=rt.index.collection,
        chunks=rt.index.count(),
        embedding_model=rt.index.embedding_model,
        total=len(infos),
        sources=[SourceOut(source=s.source, chunks=s.chunks, state=s.state) for s in page],
    )


@router.delete(
    "/{source:path}",
    responses={
        202: {"description": "Still waiting behind an ingestion job; poll the job."},
        404: {"description": "No such source."},
    },
)
async def remove(source: str, rt: RuntimeDep) -> Any:
    """Remove a source (as listed by GET /v1/documents, URL-encoded) from both stores."""
    if await asyncio.to_thread(rt.index.catalog.source, source) is None:
        raise HTTPException(404, f"source {source!r} is not in the index")
    job = rt.jobs.pending_removal(source) or rt.jobs.submit(
        Job(id=rt.jobs.new_id(), kind="remove", remove_source=source)
    )
    deadline = asyncio.get_running_loop().time() + DELETE_WAIT_S
    while not job.done_event.is_set():  # polled: a thread parked per waiting request is dearer
        if asyncio.get_running_loop().time() > deadline:
            return _accepted(job)
        await asyncio.sleep(0.05)
    if job.state == "failed":
        raise Conflict(f"could not remove {source!r}: {job.error}")
    return {"source": source, "removed_chunks": job.removed_chunks, "job": job.id}
