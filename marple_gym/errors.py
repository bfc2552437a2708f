"""The base of every error MARPLE-Gym raises on bad input.

Command-line tools print these without a traceback and exit non-zero.
"""


class MarpleError(Exception):
    """Bad input: a malformed config, an unknown name, a corrupt file..."""

    def __str__(self) -> str:  # KeyError subclasses would otherwise quote their message
        return str(self.args[0]) if self.args else ""
