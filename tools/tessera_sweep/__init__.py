"""The sweep tool behind `tessera sweep`: spec loading (spec), the parameter
space (space), running one point (runner), the local executor (local), the
results table (results), adaptive search (search) and the command line (cli)."""


class SweepError(Exception):
    """A user error: printed as `tessera sweep: error: ...`, exit status 2."""


import signal

# The signals that stop a sweep cleanly (its runs killed, results.csv written,
# exit status 130): Ctrl-C, kill, and a closed terminal or SSH session.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

STATUS_USAGE = 2
STATUS_INTERRUPTED = 130
