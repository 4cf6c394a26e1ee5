import sys

from renderer.cli import main

sys.exit(main())
