"""One module per command group. Each module defines ``register(subparsers)`` which adds its
sub-commands with ``set_defaults(func=...)``; ``func(args)`` returns the exit status."""
