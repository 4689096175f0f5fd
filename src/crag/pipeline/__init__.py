"""The CRAG flow as a LangGraph graph: state, nodes, wiring, runner and the settings factory."""

from crag.pipeline.build import build_pipeline, make_llm
from crag.pipeline.graph import build_graph
from crag.pipeline.runner import Pipeline
from crag.pipeline.state import Components, CragState

__all__ = ["Components", "CragState", "Pipeline", "build_graph", "build_pipeline", "make_llm"]
