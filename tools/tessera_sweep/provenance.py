"""What a sweep's results came from: content hashes (SHA-256) of the tessera
binary, every platform file and ELF, and the spec, recorded in sweep.json
when the sweep is created and in each point's status.json when it runs; the
git commit of the sources when there is one. `--resume` refuses a sweep
whose inputs changed since (naming them) unless --allow-changed."""
import hashlib
import os
import subprocess

_memo = {}  # (path, size, mtime_ns) -> hex digest: each file is read once per process


def sha256_file(path):
    """The file's SHA-256 (hex), or None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    if key not in _memo:
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            return None
        _memo[key] = h.hexdigest()
    return _memo[key]


def git_commit(path):
    """The commit of the git work tree holding path, with "-dirty" when it has
    changes; None outside one (or without git)."""
    d = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    try:
        head = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", d, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def inputs(sweep):
    """{"tessera": {path: hash}, "spec": {path: hash}, "files": {KEY: {path: hash}}} of a sweep."""
    def one(path):
        return {"path": path, "sha256": sha256_file(path)}
    return {"tessera": one(sweep["tessera"]), "spec": one(sweep["spec_file"]),
            "files": {k: one(p) for k, p in sweep.get("files", {}).items()}}


def changed(sweep):
    """The inputs whose content differs from what sweep.json recorded: a list of
    "WHAT PATH" strings (empty for a sweep that recorded none)."""
    recorded = sweep.get("inputs")
    if not recorded:
        return []
    out = []
    entries = [("tessera", recorded.get("tessera")), ("spec", recorded.get("spec"))]
    entries += [(k, v) for k, v in recorded.get("files", {}).items()]
    for what, entry in entries:
        if not isinstance(entry, dict) or "path" not in entry:
            continue
        now = sha256_file(entry["path"])
        if now != entry.get("sha256"):
            out.append(f"{what} {entry['path']}" + (" (missing or unreadable)" if now is None else ""))
    return out


def point_inputs(tessera, platform, program):
    """The hashes a point ran with: its tessera, platform file and program (or tool arguments' files)."""
    out = {"tessera": sha256_file(tessera)}
    if platform:
        out["platform"] = sha256_file(platform)
    if program:
        out["program"] = sha256_file(program)
    return out
