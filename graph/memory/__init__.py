"""Agent memory on the temporal store: the write gate, its exits, conflicts and ranking."""
