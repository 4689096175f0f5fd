"""The API's routers, one file per area."""

from crag.server.routes import ask, chat, documents, health

__all__ = ["ask", "chat", "documents", "health"]
