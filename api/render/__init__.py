"""How results print: Rich tables and trees or JSON, formatting only (no store, no logic), and
the terminal-safety rule that output is data, never markup or control."""
