"""The temporal core: the records Vintage stores, their closed vocabularies and bounds, the
time vocabulary, and the as-of predicate with the reasons it leaves a fact out. It names no
backend and no memory."""
