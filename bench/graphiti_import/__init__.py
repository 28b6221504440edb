"""``python -m bench.graphiti_import``: how long ``vintage import graphiti`` takes on a graph
written by graphiti-core (bench/notes/issue41-import.md)."""
