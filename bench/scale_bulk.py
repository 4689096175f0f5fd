"""A bulk load of a PostgreSQL collection, as an operator loads a large corpus: the rows the
store's own write makes (same INSERT, same tsvector, same vectors), with the HNSW index dropped
during the load and built once after it, and the BM25 statistics (`terms`, totals) counted in
one pass.

Why `bench.scale` needs it: through `PgIndex.write` every chunk updates the HNSW graph and
every source its term counts, which on this machine (2 cores shared with other busy agents,
load ~15) ran at ~25 chunks/s: 100k chunks would take over an hour. Query latency and recall
at 100k depend on what is stored, not on how it got there, so sizes past the first are bulk
loaded; the ingest rate reported for PostgreSQL is the one `PgIndex.write` reached at the first
size, and the bulk load's own rate is reported apart.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from psycopg import sql

from bench.scale_data import Corpus, sources

__all__ = ["bulk_load"]


def bulk_load(index: Any, corpus: Corpus, start: int, end: int) -> None:
    """Add chunks [start, end) of `corpus` to the `PgIndex` `index` (new sources only)."""
    from pgvector import Vector

    from crag.index.postgres.schema import hnsw_index_name
    from crag.index.postgres.store import _INSERT

    s, c, cfg = index.s, index.collection, index.catalog.ts_config
    vectors = dict(zip(corpus.texts, corpus.vectors, strict=True))
    items = sources(corpus, start, end)
    with index.db.connection() as conn:
        conn.execute(
            sql.SQL("DROP INDEX IF EXISTS {}.{}").format(s, sql.Identifier(hnsw_index_name(c)))
        )
        for i in range(0, len(items), 50):  # 5,000 chunks per transaction
            part = items[i : i + 50]
            rows: list[tuple[Any, ...]] = []
            for it in part:
                for ch in it.chunks:
                    terms = index.catalog.index_text(ch)
                    vector = Vector(np.asarray(vectors[ch.text]))
                    meta = json.dumps(ch.metadata)
                    rows.append(
                        (c, ch.id, ch.source, ch.doc_id, ch.position, ch.start, ch.end, ch.title)
                    )
                    rows[-1] += (ch.url, ch.text, meta, cfg, terms, len(terms.split()), vector)
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(
                    sql.SQL(
                        "INSERT INTO {}.sources (collection, source, sha256, chunks) "
                        "VALUES (%s, %s, %s, %s)"
                    ).format(s),
                    [(c, it.source, it.sha256, len(it.chunks)) for it in part],
                )
                cur.executemany(sql.SQL(_INSERT).format(s=s), rows)
        with conn.transaction():
            conn.execute(sql.SQL("DELETE FROM {}.terms WHERE collection=%s").format(s), (c,))
            conn.execute(
                sql.SQL(
                    "INSERT INTO {s}.terms (collection, lexeme, df) SELECT %s, u.lexeme, "
                    "count(*) FROM {s}.chunks ch, unnest(ch.tsv) u WHERE ch.collection = %s "
                    "GROUP BY u.lexeme"
                ).format(s=s),
                (c, c),
            )
            conn.execute(
                sql.SQL(
                    "UPDATE {s}.collections SET (chunks_total, terms_total) = (SELECT count(*), "
                    "coalesce(sum(nterms), 0) FROM {s}.chunks WHERE collection = %s) "
                    "WHERE name = %s"
                ).format(s=s),
                (c, c),
            )
        conn.execute("SET maintenance_work_mem = '1GB'")  # the graph is built in memory
        index.vectors.ensure_index(conn, corpus.vectors.shape[1])
        conn.execute(sql.SQL("VACUUM ANALYZE {}.chunks").format(s))
        conn.execute(sql.SQL("ANALYZE {}.terms").format(s))
