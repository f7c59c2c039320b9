"""Exact algebra outside the e-graph: normal forms, intervals, polynomial and linear solving."""
