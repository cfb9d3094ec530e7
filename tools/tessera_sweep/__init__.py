"""The sweep tool behind `tessera sweep`: spec loading (spec), the parameter
space (space), running one point (runner), the local executor (local), the
results table (results), adaptive search (search) and the command line (cli)."""


class SweepError(Exception):
    """A user error: printed as `tessera sweep: error: ...`, exit status 2."""


STATUS_USAGE = 2
STATUS_INTERRUPTED = 130
