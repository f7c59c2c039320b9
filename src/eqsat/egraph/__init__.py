"""The e-graph: engines of compiled rules, one session per query, analyses."""
