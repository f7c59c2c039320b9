"""What users call: simplify, diff, grad, solve, evaluate, stabilize, compile."""
