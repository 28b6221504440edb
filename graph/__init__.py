"""The engine under every interface: the temporal core, the store seam and its two backends,
the retrieval index, agent-memory governance and access.

Rooms: ``core`` (records, vocabularies, time, the as-of predicate), ``store`` (the storage
boundary and the backend chooser), ``writes`` (write semantics, corrections and the cascade),
``derivations`` (recipes and their expression language), ``sealing`` (memory sealed at rest and
its keys), ``embedded`` and ``neo4j`` (the backends), ``retrieval`` (the search index),
``memory`` (agent-memory governance), ``access`` (principals and API keys).
"""
