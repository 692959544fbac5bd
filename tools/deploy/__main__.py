"""``python -m tools.deploy --port PORT``: what ``make deploy`` runs."""

import sys

from tools.deploy import main

sys.exit(main())
