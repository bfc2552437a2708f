"""Agents with beliefs: what they perceive, where they think objects are, and how they search by belief."""
