"""The ``marple`` command line and the subcommands of ``marple_gym``."""
