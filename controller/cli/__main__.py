"""`python -m controller.cli ...`: the `railtable` command, where it is not installed as one."""

from controller.cli import main

raise SystemExit(main())
