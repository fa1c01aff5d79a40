"""``python -m tavli_fast`` runs ``tavli-rollout`` (the same arguments and exit status)."""

import sys

from .cli.rollout import main

if __name__ == "__main__":
    sys.exit(main())
