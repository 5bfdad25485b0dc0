"""``python -m workbench`` behaves like the ``workbench`` command."""

import sys

from workbench.cli.main import main

sys.exit(main())
