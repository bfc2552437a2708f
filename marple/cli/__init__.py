"""The ``marple`` command line: a module per subcommand, put together by :mod:`marple.cli.main`."""
