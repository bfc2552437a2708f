"""Whodunit scenarios, the evaluation protocol, metrics and plots."""
