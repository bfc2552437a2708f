"""The belief family's learned parts: a goal- and belief-conditioned policy, its training, and ``bip``."""
