import sys

from framecast_farm.cli import main

# Guarded: the local cluster's worker processes are spawned and import __main__ again.
if __name__ == "__main__":
    sys.exit(main())
