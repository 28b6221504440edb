"""The ``vintage`` command line: parse, call, format. ``main`` holds the app and the fact
commands; each other module one group of commands; ``options`` the global options."""
