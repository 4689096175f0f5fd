"""Refinement: knowledge strips from retrieved chunks (and, with the web issue, query rewriting)."""

from crag.refine.strips import RefineMode, Refiner, decompose

__all__ = ["RefineMode", "Refiner", "decompose"]
