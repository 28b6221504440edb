"""Writes, once for every backend: idempotent batches and compare-and-set (``semantics``),
corrections and their cascade downstream (``corrections``, ``cascade``, ``reach``,
``recompute``), knowledge that ends or comes back (``reinstate``), what a source holds up
(``support``), and the locks a write plans under (``locking``)."""
