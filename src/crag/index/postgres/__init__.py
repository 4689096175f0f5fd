"""The PostgreSQL index backend: catalog, full-text keyword index and pgvector vectors in one
database that every replica shares (`index.url = "postgresql://…"`)."""

from crag.index.postgres.store import PgIndex

__all__ = ["PgIndex"]
