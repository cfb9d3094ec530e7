"""Files the sweep writes inside its directory, reached without following
symbolic links.

A sweep directory may be shared (a group's scratch space, a cluster's shared
filesystem), and a resumed sweep rewrites files an earlier run left there. A
symbolic link planted in place of `points/00007/cmd.txt` (or of `points/`
itself) would make the sweep overwrite whatever the link names. So every
directory below the sweep directory is opened with O_NOFOLLOW and held open,
and every file is created through that descriptor with O_NOFOLLOW: a link is
refused, never followed. The sweep directory itself is the user's (`-o`) and
may be a link.

New files get mode 0o666 and directories 0o777, less the umask, as any
tool's files do; the group that shares a sweep directory can read them."""
import errno
import os
import secrets
import stat

from . import SweepError

FILE_MODE = 0o666
DIR_MODE = 0o777

_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_O_NOFOLLOW_DIR = _O_DIR | os.O_NOFOLLOW


def plain_name(name, where):
    """name if it is one plain file name (not empty, . or .., no / or NUL), else a SweepError."""
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\0" in name:
        raise SweepError(f"{where}: {name!r} is not a plain file name")
    return name


def _refusal(path, e):
    """The message for an OSError met opening path: a link or a non-regular file is named as such."""
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        return SweepError(f"{path} is a symbolic link; the sweep writes only its own files and does not follow "
                          "links inside its directory (remove the link)")
    if e.errno == errno.ENXIO or (st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)):
        return SweepError(f"{path} is not a regular file; the sweep writes only regular files (remove it)")
    return SweepError(f"cannot write {path}: {e.strerror}")


class Dir:
    """A directory inside a sweep directory, held open: root/names[0]/names[1]/...,
    each name opened without following a link (and created when create)."""

    def __init__(self, root, *names, create=False):
        self.path = os.path.join(root, *names)
        if create:
            try:
                os.makedirs(root, mode=DIR_MODE, exist_ok=True)
            except OSError as e:
                raise SweepError(f"cannot create directory {root}: {e.strerror}") from None
        try:
            fd = os.open(root, _O_DIR)
        except OSError as e:
            raise SweepError(f"cannot open directory {root}: {e.strerror}") from None
        path = root
        for name in names:
            try:
                plain_name(name, path)
            except SweepError:
                os.close(fd)
                raise
            path = os.path.join(path, name)
            if create:
                try:
                    os.mkdir(name, DIR_MODE, dir_fd=fd)
                except FileExistsError:
                    pass
                except OSError as e:
                    os.close(fd)
                    raise SweepError(f"cannot create directory {path}: {e.strerror}") from None
            try:
                sub = os.open(name, _O_NOFOLLOW_DIR, dir_fd=fd)
            except OSError as e:
                err = _refusal(path, e)
                if e.errno == errno.ENOTDIR and "symbolic link" not in str(err):
                    err = SweepError(f"{path} is not a directory")
                raise err from None
            finally:
                os.close(fd)
            fd = sub
        self.fd = fd

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _create(self, name, flags, mode):
        """A descriptor of a regular file name opened with flags, never through a link."""
        path = os.path.join(self.path, plain_name(name, self.path))
        try:
            # O_NONBLOCK: a FIFO planted here fails (ENXIO) instead of blocking the sweep.
            fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=self.fd)
        except OSError as e:
            raise _refusal(path, e) from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            os.close(fd)
            what = "not a regular file" if not stat.S_ISREG(st.st_mode) else \
                "a hard link to another file (the sweep would write into that file too)"
            raise SweepError(f"{path} is {what}; the sweep writes only its own files (remove it)")
        os.set_blocking(fd, True)
        return fd

    def open(self, name, mode="w", append=False):
        """name opened for writing ("w" text, "wb" bytes): created, or truncated
        (appended to with append) when it is a regular file of its own."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else 0)
        fd = self._create(name, flags, FILE_MODE)
        if not append:
            os.ftruncate(fd, 0)
        return os.fdopen(fd, mode, newline="" if "b" not in mode else None)

    def write_atomic(self, name, data, mode=FILE_MODE, times_ns=None):
        """Write data (str, bytes, an iterable of str, or a binary file to copy)
        to name through a temporary file and a rename, so a reader (or a killed
        sweep) sees the old file or the new one. A link at name is replaced,
        not followed. times_ns: (atime, mtime) to give the file."""
        plain_name(name, self.path)
        for _ in range(100):
            tmp = f".tmp-{secrets.token_hex(4)}-{name}"
            try:
                fd = self._create(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
                break
            except SweepError:
                if not os.path.lexists(os.path.join(self.path, tmp)):
                    raise
        else:
            raise SweepError(f"cannot create a temporary file in {self.path}")
        try:
            with os.fdopen(fd, "wb") as f:
                if isinstance(data, str):
                    f.write(data.encode())
                elif isinstance(data, (bytes, bytearray)):
                    f.write(data)
                elif hasattr(data, "readinto"):
                    while True:
                        chunk = data.read(1 << 20)
                        if not chunk:
                            break
                        f.write(chunk)
                else:
                    # Chunks gathered up to 64 KB, so a large sweep.json or
                    # results.csv is never one string in memory.
                    buf, size = [], 0
                    for chunk in data:
                        buf.append(chunk)
                        size += len(chunk)
                        if size >= 1 << 16:
                            f.write("".join(buf).encode())
                            buf, size = [], 0
                    f.write("".join(buf).encode())
                f.flush()
                if times_ns:
                    os.utime(f.fileno(), ns=times_ns)
                os.fsync(f.fileno())
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException as e:
            try:
                os.unlink(tmp, dir_fd=self.fd)
            except OSError:
                pass
            if isinstance(e, OSError):  # a full disk, a directory in the file's place
                raise SweepError(f"cannot write {os.path.join(self.path, name)}: {e.strerror or e}") from None
            raise

    def unlink(self, name):
        """Remove name (a link itself, never its target), if it exists."""
        plain_name(name, self.path)
        try:
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            pass

    def remove_tree(self, name, files):
        """Removes the directory name below this one, holding only files
        (names; any other entry leaves it in place), without following links."""
        with Dir(self.path, plain_name(name, self.path)) as d:
            for f in files:
                d.unlink(f)
        try:
            os.rmdir(name, dir_fd=self.fd)
        except OSError:
            pass  # something else is there: the directory stays

    def read(self, name, binary=False):
        """The contents of the regular file name, or None when it is absent, a link or not regular."""
        plain_name(name, self.path)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = f.read()
        return data if binary else data.decode(errors="replace")

    def lstat(self, name):
        """os.lstat of name, or None when it does not exist."""
        plain_name(name, self.path)
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None


def write_atomic(path, data, **kw):
    """write_atomic of a file in a directory named by the caller (the sweep
    directory itself, which may be a link the user made)."""
    with Dir(os.path.dirname(path) or ".") as d:
        d.write_atomic(os.path.basename(path), data, **kw)
