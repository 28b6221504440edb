"""Derived facts: recipes (named, versioned computations), their small safe expression language
(``expr``, ``expr_parse``), and derivations persisted with their lineage (``derived``)."""
