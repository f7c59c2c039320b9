"""Terms: the op table, hash-consed expressions, shapes, parsing, printing, evaluation."""
