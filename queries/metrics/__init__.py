"""Metric questions as of a cutoff: metric definitions, fiscal calendars, periods and windows,
plans over the facts visible then, answers persisted as derivations, and hindsight."""
