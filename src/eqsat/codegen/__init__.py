"""Code generation: printers from an extracted program to source, and the compiled Kernel."""

from .cuda import print_cuda, print_launcher
from .kernel import Kernel
from .numpy import COSTS, print_numpy

__all__ = ["COSTS", "Kernel", "print_cuda", "print_launcher", "print_numpy"]
