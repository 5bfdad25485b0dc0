"""The Versions view: saved versions, baselines and comparing them."""
