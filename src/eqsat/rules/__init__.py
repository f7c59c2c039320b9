"""The .rules language: loading rule files, guards, compilation to egglog, soundness checks."""

from .loader import library_paths, load_rules, parse_rules
from .model import Check, Guard, Rule, RuleFile
from .shipped import shipped_rules

__all__ = ["Check", "Guard", "Rule", "RuleFile", "library_paths", "load_rules", "parse_rules",
           "shipped_rules"]
