"""Reads over the store, each in one room: as-of and lineage (``lineage``), metric questions over
fiscal windows (``metrics``), search and context packs (``search``), and memory read back
(``memory``)."""
