"""The evaluation harness (``vintage eval``): scenarios replayed through the real engine, asked of
each rung of the ablation ladder and of the peers, and scored layer by layer (write, retrieval,
context and use, task and governance). docs/eval.md is the manual; the scenario files are data.
"""
