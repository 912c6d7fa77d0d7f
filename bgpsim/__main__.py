import sys

from bgpsim.cli import main

sys.exit(main())
