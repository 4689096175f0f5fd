"""crag's tables in PostgreSQL, created and migrated by crag itself.

Everything lives in one schema per collection set (`index.db_schema`, default `crag`), so several
crag deployments can share a database. `schema_version` records the migrations applied; each
migration runs in one transaction under an advisory lock, so replicas starting together migrate
once and a failed migration leaves the previous version intact.

Layout:
- `collections`: one row per collection: embedding model and dimension, keyword language and
  the text-search configuration (`english`, `turkish`, ... `simple`) its tsvectors are built
  with, and its chunk and term totals (BM25's N and average length, kept by every write);
- `sources`: one row per ingested file (SHA-256, chunk count). A source and its chunks are
  written in one transaction, so there is no `pending` state to repair;
- `chunks`: text, citation fields, the tsvector (GIN index), its length in terms and the
  embedding (pgvector). The embedding column has no fixed dimension: each collection gets its
  own partial HNSW index on `embedding::vector(dim)` once its dimension is known (pgvector's
  recipe for mixed dimensions);
- `terms`: each lexeme's document frequency per collection (BM25's idf), kept by every write;
- `jobs`, `job_files`: the server's ingestion queue and its spooled upload bytes.
"""

from __future__ import annotations

import hashlib

from psycopg import Connection, sql

__all__ = ["SCHEMA_VERSION", "hnsw_index_name", "migrate"]

_V1 = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE {s}.collections (
    name text PRIMARY KEY,
    language text NOT NULL,
    ts_config regconfig NOT NULL,
    embedding_model text,
    embedding_dim integer,
    chunks_total bigint NOT NULL DEFAULT 0,
    terms_total bigint NOT NULL DEFAULT 0);
CREATE TABLE {s}.sources (
    collection text NOT NULL REFERENCES {s}.collections ON DELETE CASCADE,
    source text NOT NULL,
    sha256 text NOT NULL,
    chunks integer NOT NULL,
    updated timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (collection, source));
CREATE TABLE {s}.chunks (
    collection text NOT NULL,
    id text NOT NULL,
    source text NOT NULL,
    doc_id text NOT NULL,
    position integer NOT NULL,
    start integer NOT NULL,
    "end" integer NOT NULL,
    title text NOT NULL,
    url text NOT NULL,
    text text NOT NULL,
    metadata jsonb NOT NULL,
    tsv tsvector NOT NULL,
    nterms integer NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (collection, id),
    FOREIGN KEY (collection, source) REFERENCES {s}.sources ON DELETE CASCADE);
CREATE INDEX chunks_source ON {s}.chunks (collection, source);
CREATE INDEX chunks_tsv ON {s}.chunks USING gin (tsv);
CREATE TABLE {s}.terms (
    collection text NOT NULL REFERENCES {s}.collections ON DELETE CASCADE,
    lexeme text NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (collection, lexeme));
"""

_V2 = """
CREATE TABLE {s}.jobs (
    id text PRIMARY KEY,
    collection text NOT NULL,
    state text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now(),
    claimed_by text,
    attempts integer NOT NULL DEFAULT 0,
    cancel text NOT NULL DEFAULT '',
    record jsonb NOT NULL);
CREATE INDEX jobs_queue ON {s}.jobs (collection, state, created);
CREATE TABLE {s}.job_files (
    job_id text NOT NULL REFERENCES {s}.jobs ON DELETE CASCADE,
    position integer NOT NULL,
    name text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (job_id, position));
"""

_MIGRATIONS: tuple[str, ...] = (_V1, _V2)
SCHEMA_VERSION = len(_MIGRATIONS)


def hnsw_index_name(collection: str) -> str:
    """A stable, valid index name for a collection's partial HNSW index."""
    return "chunks_hnsw_" + hashlib.sha1(collection.encode()).hexdigest()[:16]


def migrate(conn: Connection, schema: str) -> int:
    """Bring `schema` to `SCHEMA_VERSION`; returns the version found before. Refuses a schema
    written by a newer crag rather than guessing at its tables."""
    s = sql.Identifier(schema)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"crag-migrate:{schema}",))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(s))
        conn.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {}.schema_version ("
                "version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now())"
            ).format(s)
        )
        row = conn.execute(sql.SQL("SELECT max(version) FROM {}.schema_version").format(s))
        found = (row.fetchone() or (None,))[0] or 0
        if found > SCHEMA_VERSION:
            from crag.errors import IndexCorruptError

            raise IndexCorruptError(
                f"PostgreSQL schema {schema!r} is at version {found}, newer than this crag "
                f"understands ({SCHEMA_VERSION}); upgrade crag"
            )
        for version in range(found + 1, SCHEMA_VERSION + 1):
            for statement in _MIGRATIONS[version - 1].split(";"):
                if statement.strip():
                    conn.execute(sql.SQL(statement.strip()).format(s=s))
            conn.execute(
                sql.SQL("INSERT INTO {}.schema_version (version) VALUES (%s)").format(s),
                (version,),
            )
    return found
