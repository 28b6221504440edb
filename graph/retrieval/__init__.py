"""Retrieval: what a fact says in words (terms and vectors), and the seam each backend ranks by."""
