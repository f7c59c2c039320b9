"""Measure floating-point error in bits and find the most accurate equal form."""

import eqsat

print(eqsat.error_bits("(1 + x) - 1", {"x": (1e-12, 1e-9)}) > 20)   # True: cancellation
print(eqsat.stabilize("exp(x) - 1"))                               # expm1(x)

result = eqsat.stabilize_report("sqrt(x + 1) - sqrt(x)", "1e3 < x < 1e15")
print(result.expr)                                                 # 1/(sqrt(x + 1) + sqrt(x))
print(f"{result.bits_before:.1f} -> {result.bits_after:.1f} bits")  # 27.6 -> 0.3 bits
print(sorted(result.rules_fired)[:3])                              # rules that fired

single = eqsat.stabilize_report("log(1 + x)", {"x": (1e-8, 1e-4)}, dtype="float32")
print(single.expr, f"{single.bits_before:.1f} -> {single.bits_after:.1f} bits (float32)")
