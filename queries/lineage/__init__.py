"""As-of and lineage reads: what was known at a cutoff and its history, a fact explained down to
its sources, a source's impact and what it already changed, retraction, exports, subjects."""
