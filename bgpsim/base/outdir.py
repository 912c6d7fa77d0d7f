"""Output files and directories: bgpsim never deletes or overwrites what it did not write, and an
output belongs to the command that made it.

Every output directory bgpsim writes holds a marker, MARKER, naming the command, its kind of output
and the files it wrote. `--out DIR` may be absent (it is created), an empty directory, or the same
command's earlier output, holding nothing the marker does not list: that one is replaced whole (or
resumed, or updated, as the command does). Anything else, another command's output included, is
refused with one line before any work starts, and nothing on disk changes. A directory is written
under a temporary name beside its target and renamed into place, so a failure or Ctrl-C leaves
nothing half-written. A single output file replaces only a file of the kind its command writes
(told by its content, `check_file`).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import InputError

MARKER = ".bgpsim-output.json"
OUTPUTS = {  # command -> its kind of output, as the marker and the refusals name it
    "run": "a scenario's result",
    "incident": "an incident's replay",
    "sweep": "an adoption sweep",
    "routes": "all-destinations routes",
    "validate": "a validation of route data",
    "monitor": "a live monitor's output",
    "rpki ca build": "an RPKI repository (its private keys in .keys)",
}
_RENAME_EXCHANGE = 2  # renameat2(2): swap two paths in one step
PIECE = 1 << 20  # write_pieces


def write_pieces(f, data) -> None:
    """Writes `data` (bytes or any buffer) to the binary file `f` a mebibyte at a time. Linux gives
    a single large write large page-cache folios, which cost far more to fill on a virtual machine
    (measured on ext4, Linux 6.18: 80 MB in 0.19 s written 2 MiB or more at a time, 0.02 s in 1 MiB
    writes); the kernel makes a file of small writes as fast as of one."""
    view = memoryview(data).cast("B")
    for at in range(0, len(view), PIECE):
        f.write(view[at:at + PIECE])


def open_append(path: str | os.PathLike, header: bytes = b""):
    """A growing output file opened to append whole records: unbuffered (each write, whole lines, goes
    to the file as it is), `header` written if the file is new or empty, and a torn last line (a write
    a killed run did not finish) cut first. Returns (the file, how many bytes were cut)."""
    path = Path(path)
    f = open(path, "ab", buffering=0)
    size = f.tell()
    cut = 0
    if size:
        with open(path, "rb") as r:
            r.seek(max(0, size - (1 << 16)))
            tail = r.read()
        if not tail.endswith(b"\n"):
            end = tail.rfind(b"\n")
            keep = size - len(tail) + end + 1 if end >= 0 else 0
            os.truncate(path, keep)
            cut, size = size - keep, keep
    if size == 0:
        f.write(header)
    return f, cut


def temp_beside(path: Path, buffering: int = -1):
    """A new temporary file beside `path`, private until `put_in_place`: (the file open for binary
    writing, its name)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    return os.fdopen(fd, "wb", buffering=buffering), tmp


def put_in_place(tmp: str, path: Path, mode: int | None = None) -> None:
    """The temporary file `tmp` (temp_beside) renamed over `path`, as an ordinary file (0666 less the
    umask; mkstemp made it private) or with `mode`."""
    os.chmod(tmp, _ordinary(0o666) if mode is None else mode)
    os.replace(tmp, path)


def write_atomic(path: str | os.PathLike, data: bytes | str, mode: int | None = None) -> Path:
    """Write `data` through a temporary file beside `path` renamed over it: a reader sees the old
    file or the new one, never part of one. `mode`: default an ordinary file (0666 less the umask);
    0o600 for secrets."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    f, tmp = temp_beside(path)
    try:
        with f:
            write_pieces(f, data.encode("utf-8") if isinstance(data, str) else data)
        put_in_place(tmp, path, mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


HEAD = 1 << 16  # bytes of an existing file read to tell its kind


def _vrps_head(head: bytes) -> bool:
    """rpki vrps / rpki validate's outputs (WRITERS in bgpsim.rpki.vrps), told by their first bytes."""
    text = head.decode("utf-8", "replace")
    first = text.split("\n", 1)[0]
    return ((text.lstrip().startswith("{") and '"metadata"' in text and '"roas"' in text)
            or first == "ASN,IP Prefix,Max Length,Trust Anchor"
            or first == "roa-set {"
            or (first.startswith("route ") and " max " in first and first.endswith(";")))


def _bgp4mp_head(head: bytes) -> bool:
    """`bgp speak --out`'s recordings: they begin with a BGP4MP_ET state change (RFC 6396 section 4.4)."""
    return len(head) >= 16 and head[4:8] == b"\x00\x11\x00\x05"


FILE_KINDS = {  # what a single-file command writes -> (how a refusal names it, the test of a file's head)
    "pcap": ("a packet capture (pcap or pcapng)",
             lambda head: head[:4] in (b"\xa1\xb2\xc3\xd4", b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\x3c\x4d",
                                       b"\x4d\x3c\xb2\xa1", b"\x0a\x0d\x0d\x0a")),
    "vrps": ("VRPs (rpki-client JSON, Routinator CSV, a BIRD 2 ROA table or an OpenBGPD roa-set)",
             _vrps_head),
    "watch": ("a watch file bgpsim wrote", lambda head: head.startswith(b"# bgpsim watch file")),
    "mrt": ("an MRT recording of BGP messages (BGP4MP)", lambda head: _bgp4mp_head(head)),
}


def check_file(path: str | os.PathLike, kind: str, flag: str = "--out") -> Path:
    """Whether a command writing `kind` (FILE_KINDS) may write the file `path`: a new file in a
    writable directory, an empty file, or a file of that kind (the command's earlier output); else
    an InputError naming it. Called before any work, and again as the file is written."""
    path = Path(path)
    what, is_kind = FILE_KINDS[kind]
    try:
        if path.is_dir():
            raise InputError(f"{flag} {path}: is a directory; want a file name")
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise InputError(f"{flag} {path}: exists and is not a regular file; bgpsim writes a new file "
                             f"or replaces {what}")
        if not path.parent.is_dir():
            raise InputError(f"{flag} {path}: no such directory {path.parent}")
        if path.exists():
            with open(path, "rb") as f:
                head = f.read(HEAD)
            if head and not is_kind(head):
                raise InputError(f"{flag} {path}: exists and is not {what}; bgpsim replaces only a file of "
                                 "the kind it writes: name a new file")
    except OSError as e:
        raise InputError(f"{flag} {path}: cannot use it: {e.strerror or e}") from None
    _probe(path.parent, path, flag)
    return path


def write_file(path: str | os.PathLike, data: bytes | str, kind: str, flag: str = "--out") -> Path:
    """A single output file the user named: checked (check_file), then written atomically; any
    failure is one line naming it."""
    path = check_file(path, kind, flag)
    try:
        return write_atomic(path, data)
    except OSError as e:
        raise InputError(f"{flag} {path}: cannot write: {e.strerror or e}") from None


def check(out: str | os.PathLike, command: str, flag: str = "--out") -> str:
    """Whether bgpsim may write the directory `out` for `command`: "new", "empty" or "ours" (the
    output of `command` itself, holding nothing else); otherwise an InputError naming it."""
    out = Path(out)
    here = Path.cwd().resolve()
    if out.resolve() in (here, *here.parents):
        raise InputError(f"{flag} {out}: is the current directory or holds it; name a directory for the output")
    try:
        is_link, is_dir = out.is_symlink(), out.is_dir()
        exists = is_link or out.exists()
    except OSError as e:
        raise InputError(f"{flag} {out}: cannot use it: {e.strerror or e}") from None
    if not exists:
        _probe(_existing_ancestor(out, flag), out, flag)
        return "new"
    if is_link or not is_dir:
        what = "a symbolic link" if is_link else "not a directory"
        raise InputError(f"{flag} {out}: exists and is {what}; bgpsim writes a new or empty directory, "
                         "or replaces one it wrote itself")
    try:
        entries = sorted(os.listdir(out))
    except OSError as e:
        raise InputError(f"{flag} {out}: cannot read it: {e.strerror or e}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {out}: is read-only")
    _probe(out.resolve().parent, out, flag)
    if not entries:
        return "empty"
    if MARKER not in entries:
        raise InputError(f"{flag} {out}: is not empty and bgpsim did not write it (it holds {entries[0]}); "
                         "name a new or empty directory")
    try:
        marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
        written = set(marker["files"])
        previous = marker["command"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"{flag} {out}: its {MARKER} is not one bgpsim wrote; name another directory") from None
    if previous != command:
        raise InputError(f"{flag} {out}: holds {OUTPUTS.get(previous, 'the output')} that `bgpsim {previous}` "
                         f"wrote; only `bgpsim {previous}` may replace it; name another directory for "
                         f"`bgpsim {command}`")
    foreign = _foreign(out, written)
    if foreign is not None:
        raise InputError(f"{flag} {out}: holds {foreign}, which bgpsim did not write; move it away or name "
                         "another directory")
    return "ours"


@contextmanager
def staged(out: str | os.PathLike, command: str, flag: str = "--out", seed: bool = False):
    """Yield a temporary directory beside `out`; when the block ends without error it becomes `out`
    (replacing bgpsim's earlier output there), otherwise it is removed. `seed`: the temporary
    directory starts as hard links of bgpsim's earlier output (for commands that update it)."""
    out = Path(out)
    state = check(out, command, flag)
    made, tmp = [], None
    try:
        try:
            made = _make_parents(out.parent, flag)
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
            os.chmod(tmp, _ordinary(0o777))  # mkdtemp makes it private; the output is an ordinary directory
            if seed and state == "ours":
                _link_tree(out, tmp)
        except OSError as e:
            raise _output_error(e, out, flag) from None
        try:
            yield tmp
        except OSError as e:
            if e.filename is not None and not _inside(e.filename, tmp):
                raise  # not the output's fault (an input, say)
            raise _output_error(e, out, flag) from None
        try:
            _write_marker(tmp, command)
            if check(out, command, flag) == "ours":  # again: the user may have added a file meanwhile
                _swap(tmp, out)
            else:
                os.replace(tmp, out)
            tmp = None
        except OSError as e:
            raise _output_error(e, out, flag) from None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            for d in reversed(made):
                with suppress(OSError):  # not empty: something else was put there meanwhile
                    d.rmdir()


def _output_error(e: OSError, out: Path, flag: str) -> InputError:
    return InputError(f"{flag} {out}: cannot write: {e.strerror or e}")


def resumable(out: str | os.PathLike, command: str, files: tuple[str, ...], flag: str = "--out") -> Path:
    """`out` made ready for a command that writes `files` in place and resumes what it finds there
    (a sweep): created, or marked if empty, or checked to be that command's own output."""
    out = Path(out)
    state = check(out, command, flag)
    try:
        if state == "new":
            _make_parents(out, flag)
        if state != "ours":
            write_atomic(out / MARKER, _marker_text(command, files))
    except OSError as e:
        raise _output_error(e, out, flag) from None
    return out


def add_files(out: str | os.PathLike, command: str, names) -> None:
    """List more files in the marker of `out`, a directory `command` writes in place (resumable):
    before they are first written, so a later run takes them for its own."""
    out = Path(out)
    try:
        listed = set(json.loads((out / MARKER).read_text(encoding="utf-8"))["files"])
        write_atomic(out / MARKER, _marker_text(command, listed | set(names)))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"--out {out}: cannot list {', '.join(names)} in its {MARKER}: {e}") from None


def _marker_text(command: str, files) -> str:
    from bgpsim import __version__

    return json.dumps({"written_by": f"bgpsim {__version__}", "command": command, "output": OUTPUTS[command],
                       "files": sorted(files)}, indent=1) + "\n"


def _write_marker(d: Path, command: str) -> None:
    files = [str(p.relative_to(d)) for p in d.rglob("*") if not p.is_dir() and p.name != MARKER]
    write_atomic(d / MARKER, _marker_text(command, files))


def _foreign(out: Path, written: set[str]) -> str | None:
    """The first entry under `out` that the marker does not list (nor is a temporary file of
    bgpsim's beside a listed one), or None."""
    dirs = {str(p) for f in written for p in Path(f).parents}
    for root, subdirs, names in os.walk(out):
        rel = Path(root).relative_to(out)
        for name in sorted(subdirs):
            if str(rel / name) not in dirs or (Path(root) / name).is_symlink():
                return str(rel / name)
        for name in sorted(names):
            path = rel / name
            if name == MARKER and rel == Path("."):
                continue
            if str(path) in written:
                continue
            if name.startswith(".") and name.endswith(".tmp") and str(rel / name[1:].rsplit(".", 2)[0]) in written:
                continue  # write_atomic's temporary file (".NAME.XXXXXXXX.tmp"), left by a killed run
            return str(path)
    return None


def _existing_ancestor(out: Path, flag: str) -> Path:
    for parent in out.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{flag} {out}: cannot create it: {parent} is not a directory")
            return parent
    raise InputError(f"{flag} {out}: cannot create it")  # unreachable: "/" exists


def _probe(d: Path, out: Path, flag: str) -> None:
    """Make and remove a directory in `d`: the one sure test that the output can be written there."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".bgpsim-probe.", dir=d))
    except OSError as e:
        raise InputError(f"{flag} {out}: cannot write in {d}: {e.strerror or e}") from None


def _make_parents(d: Path, flag: str) -> list[Path]:
    """mkdir -p `d`; the directories it made, outermost first (removed again if the output fails)."""
    missing = [p for p in (d.absolute(), *d.absolute().parents) if not p.exists()][::-1]
    for p in missing:
        try:
            p.mkdir(exist_ok=True)
        except OSError as e:
            raise InputError(f"{flag} {d}: cannot create {p}: {e.strerror or e}") from None
    return missing


def _link_tree(src: Path, dst: Path) -> None:
    """dst (empty) becomes a copy of src made of hard links: changing a file in dst means writing a
    new one (write_atomic), so src stays as it was until the swap."""
    for root, subdirs, names in os.walk(src):
        rel = Path(root).relative_to(src)
        for name in subdirs:
            (dst / rel / name).mkdir()
            os.chmod(dst / rel / name, os.stat(Path(root) / name).st_mode & 0o7777)
        for name in names:
            try:
                os.link(Path(root) / name, dst / rel / name)
            except OSError:
                shutil.copy2(Path(root) / name, dst / rel / name)


def _swap(new: Path, out: Path) -> None:
    """`new` takes the place of the directory `out` (bgpsim's own, checked), which is then removed.
    Where the kernel can, both names are exchanged in one step: readers see the old or the new."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    at_cwd = -100
    if renameat2 is not None and renameat2(at_cwd, os.fsencode(new), at_cwd, os.fsencode(out), _RENAME_EXCHANGE) == 0:
        shutil.rmtree(new)  # now the old output
        return
    if renameat2 is not None and ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(out))
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    os.replace(out, old / out.name)
    os.replace(new, out)
    shutil.rmtree(old)


def _inside(filename, d: Path) -> bool:
    try:
        return Path(os.fsdecode(filename)).absolute().is_relative_to(d.absolute())
    except (TypeError, ValueError):
        return False


def _ordinary(mode: int) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask
