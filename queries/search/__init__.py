"""Search inside the legal set and the context packs built from it: ranking legs and their
fusion, checks after ranking, packs cut to a token budget, and the injection trace."""
