"""`python -m shapesense ...`: the same command line as the `shapesense` script."""
import sys

from shapesense.server.cli import main

sys.exit(main())
