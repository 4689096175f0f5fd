"""`crag serve`: the HTTP service (FastAPI) over one collection.

from crag.server import create_app
app = create_app(settings)          # builds the pipeline and indexes at startup
app = create_app(settings, pipeline=p, index=reader, writer=writer)  # or pass your own
"""

from crag.server.app import create_app

__all__ = ["create_app"]
