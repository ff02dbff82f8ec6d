"""Writing an output file all-or-nothing, never onto an input.

Every command that writes a file (``check --html``, ``inputs --html``, ``offload --fix -o``,
``relayout ... OUT``) goes through :func:`write_output`:

* the data goes to a temporary file in the target's folder, is flushed and
  fsync'ed, then renamed over the target (``os.replace``, atomic on POSIX), so an
  error half-way (disk full, a limit, a signal) leaves the old content intact and
  no partial file under the target's name;
* a target that is one of the command's inputs (same path, or the same file by
  ``os.path.samefile``: a hard link, a symlink, ``./a.hlo`` vs ``a.hlo``) is
  refused before anything is computed into it;
* a target that exists as a read-only regular file (no write permission bit, e.g. mode
  0444, or one this user may not write) is refused: renaming over it would replace a
  file its owner protected, which ``cp`` and shell redirection also refuse;
* a target that exists but is not a regular file (``/dev/null``, ``/dev/full``, a
  FIFO) is written in place, since renaming over a device node would replace it;
* every failure is an :class:`~xladoctor.base.errors.InputError` located at the target
  (``OUT:1:1: cannot write ...``), exit 2, and stderr says what was written.

``--fix`` in place is the exception: :func:`rewrite_in_place` writes the fixed text into the file
itself, as ruff and black do, so the file keeps its inode (a hard link still shares the fixed text),
its owner, mode and extended attributes; a symlink fixes the file it points to.  It never damages:
the text was verified (parsed back) by its caller, the file must still hold what was read, the new
size is allocated before a byte is written (a full disk fails there), and a write that fails midway
(an error, Ctrl-C, SIGTERM) puts the original bytes back before the error is reported.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable

from ...base.errors import InputError
from ...base.escape import escape_field
from ...base.labels import label


def refuse_overwriting_inputs(target: str, inputs: Iterable[str | None]) -> None:
    """Raise if ``target`` names the same file as one of ``inputs`` (checked before any work)."""
    if target == "-":
        return
    for src in inputs:
        if src in (None, "-"):
            continue
        same = os.path.abspath(src) == os.path.abspath(target)
        if not same:
            try:
                same = os.path.samefile(src, target)
            except OSError:
                same = False
        if same:
            raise InputError(f"refusing to write over the input file {src!r}; choose another output path",
                             target, 1, 1)


def refuse_fixing_an_example(path: str) -> None:
    """Raise if ``path`` is one of the bundled examples: ``--fix`` in place would edit the installed
    package, and ``check --examples`` would then find nothing (``check --fix --examples`` is
    refused the same way).  ``-o OUT`` and ``--diff`` write nothing there."""
    from ...base.errors import UsageError

    examples = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))), "examples")
    if os.path.dirname(os.path.realpath(path)) == examples:
        raise UsageError("--fix edits files in place: copy the examples and fix the copies (or give -o OUT or --diff)")


def refuse_fixing_compressed(path: str) -> None:
    """Raise if ``path`` is compressed (by its suffix or its first bytes): ``--fix`` in place writes
    the module as text, which would leave text under ``NAME.hlo.gz``, a file no reader of gzip
    (this one included) takes any more.  Checked before anything is computed or written."""
    from ...base.files import COMPRESSIONS, compression_in, compression_of

    kind = compression_of(path)
    if kind is None:
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return
            with open(path, "rb") as f:
                kind = compression_in(f.read(16))
        except OSError:
            return  # the read that follows says why, located
    if kind is not None:
        raise InputError(f"is {COMPRESSIONS[kind]}-compressed and --fix writes the module as text: nothing was "
                         "written (decompress it first, or give -o OUT)", path, 1, 1)


def refuse_if_changed(path: str, text: str) -> None:
    """Raise if ``path`` no longer holds ``text``, the text a fix was computed from: an editor or a
    job that wrote the file meanwhile would otherwise lose its change to the fixed old text."""
    from ...base.files import decode_text, read_path

    try:
        now = decode_text(*read_path(path))
    except InputError:
        now = None
    if now != text:
        raise InputError("changed on disk while it was checked: nothing was written (run the fix again)", path, 1, 1)


def write_output(target: str, data: bytes | str, what: str, inputs: Iterable[str | None] = (), lang: str = "en",
                 announce: bool = True) -> None:
    """Write ``data`` to ``target`` atomically; ``what`` names it on stderr ("HTML report"), in ``lang``.
    ``announce=False`` for a fix in place, which its caller already reports as ruff does (one
    "fixed" line per fix): saying the write again would be the same news twice."""
    refuse_overwriting_inputs(target, inputs)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    real = os.path.realpath(target)  # write through a symlink, keep the link
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise InputError(f"cannot write {what}: {e.strerror or e}", target, 1, 1) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"cannot write {what}: is a directory", target, 1, 1)
    if st is not None and stat.S_ISREG(st.st_mode):
        _refuse_read_only(st, real, what, target)
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            _write_in_place(real, payload)
        else:
            _write_atomically(real, payload, st)
    except OSError as e:
        raise InputError(f"cannot write {what}: {e.strerror or e}", target, 1, 1) from None
    if announce:
        print(label("status.wrote", lang, what=what, size=f"{len(payload):,}", target=escape_field(target)),
              file=sys.stderr)


def _refuse_read_only(st: os.stat_result, real: str, what: str, target: str) -> None:
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(real, os.W_OK):
        raise InputError(f"cannot write {what}: the file is read-only (mode {stat.S_IMODE(st.st_mode):04o}); "
                         "make it writable or choose another output path", target, 1, 1)


def rewrite_in_place(target: str, before: str, data: str, what: str) -> None:
    """Write ``data`` into the file ``target`` itself (its inode, through a symlink to the file it
    names), which must still hold ``before``, the text the fix was computed from; nothing else is
    announced (the caller says what it fixed).  On failure the file holds ``before`` again and an
    :class:`InputError` located at ``target`` says why (exit 2)."""
    payload, original = data.encode("utf-8"), before.encode("utf-8")
    real = os.path.realpath(target)
    try:
        st = os.stat(real)
    except OSError as e:
        raise InputError(f"cannot write {what}: {e.strerror or e}", target, 1, 1) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"cannot write {what}: not a regular file; give -o OUT", target, 1, 1)
    _refuse_read_only(st, real, what, target)
    try:
        fd = os.open(real, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))  # no O_TRUNC: the same inode
    except OSError as e:
        raise InputError(f"cannot write {what}: {e.strerror or e}", target, 1, 1) from None
    try:
        if _read_all(fd) != original:
            raise InputError("changed on disk while it was checked: nothing was written (run the fix again)",
                             target, 1, 1)
        _replace_contents(fd, payload, original, what, target)
    finally:
        os.close(fd)


def _replace_contents(fd: int, payload: bytes, original: bytes, what: str, target: str) -> None:
    """``payload`` over ``original`` in ``fd``; the original bytes back on any failure."""
    try:
        if len(payload) > len(original):
            _allocate(fd, len(original), len(payload) - len(original))
        _pwrite_all(fd, payload)
        os.ftruncate(fd, len(payload))
        os.fsync(fd)
    except BaseException as failure:
        try:
            _pwrite_all(fd, original)
            os.ftruncate(fd, len(original))
            os.fsync(fd)
        except OSError as e:
            raise InputError(f"cannot write {what}: {_why(failure)}, and the original text could not be put back "
                             f"({e.strerror or e}): the file may be damaged", target, 1, 1) from None
        if isinstance(failure, OSError):
            raise InputError(f"cannot write {what}: {_why(failure)}; the file was left as it was",
                             target, 1, 1) from None
        raise


def _why(failure: BaseException) -> str:
    return (failure.strerror or str(failure)) if isinstance(failure, OSError) else type(failure).__name__


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _pwrite_all(fd: int, data: bytes) -> None:
    view, offset = memoryview(data), 0
    while offset < len(view):
        written = os.pwrite(fd, view[offset:], offset)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        offset += written


def _allocate(fd: int, offset: int, length: int) -> None:
    """Reserve the bytes the file grows by before writing, so a full disk fails here with the old
    text whole; a file system without fallocate (EOPNOTSUPP, EINVAL) is written without it."""
    if not hasattr(os, "posix_fallocate"):
        return
    try:
        os.posix_fallocate(fd, offset, length)
    except OSError as e:
        if e.errno not in (errno.EOPNOTSUPP, errno.EINVAL, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)):
            raise


def _write_in_place(path: str, payload: bytes) -> None:
    with open(path, "wb") as f:
        f.write(payload)
        f.flush()


def _write_atomically(path: str, payload: bytes, existing: os.stat_result | None) -> None:
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise FileNotFoundError(2, f"folder {folder!r} does not exist")
    import tempfile  # here: only a write needs it (tempfile, shutil, random: ~10 ms of every offload run)

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        if existing is not None:
            os.chmod(tmp, stat.S_IMODE(existing.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
