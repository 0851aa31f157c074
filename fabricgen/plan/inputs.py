"""Where a plan's two inventories come from, and the digests that pin them.

``--base`` is either a path (an inventory file or directory) or a git ref: for a ref, the inventory's
files are read at that commit with ``git ls-tree``/``git show`` (arguments passed as a list, never
through a shell; the ref is validated first) into a temporary directory and loaded from there.

A digest is the sha256 over every inventory file, in order of relative path, and fabricgen's version::

    fabricgen <version>\\n
    <relative path>\\0<sha256 of the file>\\n   (one line per file)
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from fabricgen import __version__
from fabricgen.errors import InputError, Problem, SourcePos
from fabricgen.inventory.load import _yaml_files

_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./@{}~^+-]{0,199}$")
_GIT_TIMEOUT = 60


@dataclass(frozen=True, slots=True)
class InputFile:
    path: str  # relative to the inventory (its file name for a one-file inventory)
    sha256: str


@dataclass(frozen=True, slots=True)
class InputRecord:
    """One inventory a plan was made from.

    ``path``: the inventory path as given on the command line (relative to the working directory, and to
    the repository root for a git ref). ``ref``/``commit``: set when it was read from git.
    """

    path: str
    files: tuple[InputFile, ...]
    digest: str
    ref: str | None = None
    commit: str | None = None
    version: str = __version__

    @property
    def source(self) -> str:
        return f"{self.ref} ({(self.commit or '')[:12]}) {self.path}" if self.ref else self.path

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "digest": self.digest,
            "version": self.version,
            "files": {f.path: f.sha256 for f in self.files},
        }
        if self.ref is not None:
            out["ref"] = self.ref
            out["commit"] = self.commit
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> InputRecord:
        return cls(
            path=str(d["path"]),
            files=tuple(InputFile(str(k), str(v)) for k, v in d["files"].items()),
            digest=str(d["digest"]),
            ref=d.get("ref"),
            commit=d.get("commit"),
            version=str(d.get("version", "")),
        )


def digest(files: list[InputFile] | tuple[InputFile, ...], version: str = __version__) -> str:
    h = hashlib.sha256(f"fabricgen {version}\n".encode())
    for f in sorted(files, key=lambda f: f.path):
        h.update(f"{f.path}\0{f.sha256}\n".encode())
    return h.hexdigest()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inventory_files(path: str | Path) -> list[InputFile]:
    """The files :func:`fabricgen.inventory.load.load_inventory` reads for ``path``, with their sha256."""
    root = Path(path)
    out = []
    problems: list[Problem] = []
    for f in _yaml_files(root):
        rel = f.name if root.is_file() else f.relative_to(root).as_posix()
        try:
            data = f.read_bytes()
        except OSError as exc:  # the loader reports it too; the digest must not end in a traceback first
            problems.append(Problem(SourcePos(str(f), 1, 1), "", f"cannot read the file: {exc.strerror or exc}"))
            continue
        out.append(InputFile(rel, _sha(data)))
    if problems:
        raise InputError(problems)
    return sorted(out, key=lambda f: f.path)


def record_path(path: str | Path) -> InputRecord:
    files = inventory_files(path)
    return InputRecord(str(path), tuple(files), digest(files))


# ----------------------------------------------------------------------------- git


class GitError(InputError):
    def __init__(self, message: str) -> None:
        super().__init__([Problem(None, "--base", message)])


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=_GIT_TIMEOUT, check=False, shell=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        msg = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {msg[-1] if msg else f'exit {done.returncode}'}")
    return done.stdout


def valid_ref(ref: str) -> bool:
    """A ref or revision we pass to git: no option-like or path-escaping forms.

    >>> valid_ref("main"), valid_ref("origin/main"), valid_ref("HEAD~1"), valid_ref("--output=x"), valid_ref("a..b")
    (True, True, True, False, False)
    """
    return bool(_REF.match(ref)) and ".." not in ref and not ref.endswith((".lock", "/", "."))


def _repo(path: Path) -> Path:
    start = path if path.is_dir() else path.parent
    if not start.exists():
        start = Path.cwd()
    return Path(_git(["rev-parse", "--show-toplevel"], start).decode().strip())


def resolve_commit(ref: str, repo: Path) -> str:
    if not valid_ref(ref):
        raise GitError(f"{ref!r} is neither an existing inventory path nor a valid git ref")
    try:
        return _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], repo).decode().strip()
    except GitError:
        raise GitError(f"{ref!r} is neither an existing inventory path nor a commit in {repo}") from None


def _git_files(commit: str, repo: Path, rel: str) -> list[tuple[str, str]]:
    """(path in the repository, path relative to the inventory) of the inventory files at ``commit``."""
    out = _git(["ls-tree", "-r", "-z", "--name-only", commit, "--", rel], repo)
    names = [n for n in out.decode().split("\0") if n]
    files = []
    for name in names:
        p = PurePosixPath(name)
        if name == rel:  # a one-file inventory
            files.append((name, p.name))
            continue
        inner = p.relative_to(rel) if rel not in ("", ".") else p
        if p.suffix in (".yaml", ".yml") and not any(part.startswith(".") for part in inner.parts):
            files.append((name, inner.as_posix()))
    return files


@contextmanager
def git_inventory(ref: str, inventory: str | Path) -> Iterator[tuple[Path, InputRecord]]:
    """Check out the files of ``inventory`` as they are at ``ref`` into a temporary directory.

    Yields the path to load (a directory, or a file for a one-file inventory) and its record.
    """
    target = Path(inventory).resolve()
    repo = _repo(target)
    commit = resolve_commit(ref, repo)
    try:
        rel = target.relative_to(repo.resolve()).as_posix()
    except ValueError:
        raise GitError(f"{inventory} is not inside the git repository {repo}") from None
    files = _git_files(commit, repo, rel)
    if not files:
        raise GitError(f"{rel} holds no inventory files at {ref} ({commit[:12]})")
    with tempfile.TemporaryDirectory(prefix="fabricgen-base-") as tmp:
        root = Path(tmp) / "inventory"
        records = []
        for name, inner in files:
            data = _git(["show", f"{commit}:{name}"], repo)
            dest = root / inner
            if ".." in PurePosixPath(inner).parts:
                raise GitError(f"refusing path {name!r}")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            records.append(InputFile(inner, _sha(data)))
        one_file = len(files) == 1 and files[0][0] == rel
        load_path = root / files[0][1] if one_file else root
        rec = InputRecord(str(inventory), tuple(sorted(records, key=lambda f: f.path)), digest(records), ref, commit)
        yield load_path, rec


@dataclass
class Base:
    """The ``--base`` argument, understood: a path on disk, else a git ref (``git:REF`` forces a ref)."""

    given: str
    ref: str | None = field(default=None)

    @classmethod
    def parse(cls, given: str) -> Base:
        if given.startswith("git:"):
            return cls(given, given[4:])
        if Path(given).exists():
            return cls(given)
        return cls(given, given)


@contextmanager
def open_base(base: Base, inventory: str | Path) -> Iterator[tuple[Path, InputRecord]]:
    if base.ref is None:
        yield Path(base.given), record_path(base.given)
        return
    with git_inventory(base.ref, inventory) as got:
        yield got


# ----------------------------------------------------------------------------- re-checking


def _name(where: str, path: str) -> str:
    w = where.rstrip("/")
    one_file = PurePosixPath(w).name == path and PurePosixPath(w).suffix in (".yaml", ".yml")
    return w if one_file else f"{w}/{path}"


def changed_files(before: InputRecord, now: list[InputFile], where: str) -> list[str]:
    """One sentence per file that differs between a saved record and the files now."""
    old = {f.path: f.sha256 for f in before.files}
    new = {f.path: f.sha256 for f in now}
    out = []
    for path in sorted(old.keys() | new.keys()):
        name = _name(where, path)
        if path not in new:
            out.append(f"{name}: removed since the plan was made")
        elif path not in old:
            out.append(f"{name}: added since the plan was made")
        elif old[path] != new[path]:
            out.append(f"{name}: changed since the plan was made (sha256 {old[path][:12]} → {new[path][:12]})")
    return out


def recheck(record: InputRecord, root: Path | None = None) -> list[str]:
    """What changed in one input since ``record`` was taken (empty: nothing)."""
    base_dir = root or Path.cwd()
    path = Path(record.path)
    full = path if path.is_absolute() else base_dir / path
    if record.ref is not None:
        try:
            repo = _repo(full)
            commit = resolve_commit(record.ref, repo)
        except InputError as exc:
            return [f"{record.ref}: {p.message}" for p in exc.problems]
        if commit == record.commit:
            return []
        rel = full.resolve().relative_to(repo.resolve()).as_posix()
        now = []
        for name, inner in _git_files(commit, repo, rel):
            now.append(InputFile(inner, _sha(_git(["show", f"{commit}:{name}"], repo))))
        where = f"{record.ref}:{rel}"
        return changed_files(record, now, where)
    try:
        now = inventory_files(full)
    except InputError:
        return [f"{record.path}: no longer exists"]
    return changed_files(record, now, record.path)
