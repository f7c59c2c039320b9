"""Extraction: cost models, the DAG extractor, and display order of extracted terms."""

from .cost import CostModel, TensorCost
from .dag import extract_dag
from .order import display_order
from .tree import TreeExtractor

__all__ = ["CostModel", "TensorCost", "TreeExtractor", "display_order", "extract_dag"]
