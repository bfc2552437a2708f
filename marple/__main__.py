"""``python -m marple``: the ``marple`` command."""

import sys

from marple.cli.main import main

sys.exit(main())
