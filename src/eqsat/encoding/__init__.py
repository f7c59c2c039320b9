"""Terms and analyses as egglog commands, built as data from the op table."""
