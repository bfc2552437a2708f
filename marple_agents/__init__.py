"""Agent models and inference methods for MARPLE whodunit scenarios."""
