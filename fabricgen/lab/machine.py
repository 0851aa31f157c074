"""Thin, explicit wrappers around the Linux tools the lab drives (ip, nsenter, ssh-keygen, sysctl).

Every function takes names we created; nothing here matches processes or links by pattern.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from fabricgen.lab.plan import LabError

NETNS_DIR = Path("/run/netns")

TOOLS = {
    "ip": "iproute2",
    "unshare": "util-linux",
    "nsenter": "util-linux",
    "ssh-keygen": "openssh-client",
    "sshd": "openssh-server",
    "lldpd": "lldpd",
    "lldpcli": "lldpd",
    "vtysh": "frr",
}
FRR_FILES = {"/usr/lib/frr/frrinit.sh": "frr", "/usr/lib/frr/frr-reload.py": "frr-pythontools"}


def missing_prerequisites() -> list[str]:
    """Why the lab cannot run here (empty when it can): not Linux, not root, a tool or package missing."""
    why: list[str] = []
    if platform.system() != "Linux":
        return [f"the lab needs Linux network namespaces; this is {platform.system()}"]
    if os.geteuid() != 0:
        why.append("the lab needs root (network namespaces, veths, bind mounts); run it with sudo")
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    for tool, pkg in TOOLS.items():
        if shutil.which(tool, path=path) is None:
            why.append(f"{tool} not found (apt-get install {pkg})")
    for file, pkg in FRR_FILES.items():
        if not Path(file).exists():
            why.append(f"{file} not found (apt-get install {pkg})")
    return why


def run(argv: Sequence[str], *, input: str | None = None, check: bool = True, timeout: float = 30) -> str:
    """Run a command; on failure raise LabError naming the command and its stderr."""
    proc = subprocess.run(list(argv), input=input, capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise LabError(f"{' '.join(argv[:6])}{' …' if len(argv) > 6 else ''}: {proc.stderr.strip() or proc.returncode}")
    return proc.stdout


def ip_batch(commands: Sequence[str], netns: str | None = None) -> None:
    if not commands:
        return
    argv = ["ip", *(["-n", netns] if netns else []), "-batch", "-"]
    run(argv, input="\n".join(commands) + "\n")


def netns_exists(name: str) -> bool:
    return (NETNS_DIR / name).exists()


def netns_inode(name: str) -> tuple[int, int] | None:
    try:
        st = os.stat(NETNS_DIR / name)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def pid_netns(pid: int) -> tuple[int, int] | None:
    try:
        st = os.stat(f"/proc/{pid}/ns/net")
    except OSError:
        return None
    return st.st_dev, st.st_ino


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def netns_pids(name: str) -> list[int]:
    out = run(["ip", "netns", "pids", name], check=False)
    return [int(x) for x in out.split() if x.isdigit()]


def kill_in_netns(name: str, extra: Sequence[int] = (), grace: float = 2.0) -> list[int]:
    """Stop every process of the namespace we created (and the recorded ``extra`` pids if they still live in it).

    A pid is signalled only after checking that it still belongs to this very namespace (device and inode of
    ``/proc/PID/ns/net`` equal those of ``/run/netns/NAME``), so a recycled pid is never hit.
    """
    ident = netns_inode(name)
    if ident is None:
        return []
    pids = sorted(set(netns_pids(name)) | set(extra))
    ours = [p for p in pids if pid_netns(p) == ident]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in ours:
            if pid_netns(pid) == ident:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(pid_netns(p) == ident for p in ours):
            time.sleep(0.05)
        if not any(pid_netns(p) == ident for p in ours):
            break
    # reap children of ours (holders are our children when started from this process)
    for pid in ours:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    return ours


def sysctl_get(key: str) -> str:
    return Path("/proc/sys", *key.split(".")).read_text().strip()


def sysctl_set(key: str, value: str) -> None:
    Path("/proc/sys", *key.split(".")).write_text(value)


def keygen(path: Path, comment: str) -> str:
    """Create an ed25519 key pair at ``path``; return the public key line."""
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])
    return path.with_suffix(".pub").read_text().strip() if path.suffix else Path(f"{path}.pub").read_text().strip()


def sha512_crypt(password: str) -> str:
    """A crypt(3) SHA-512 hash for /etc/shadow (never passed on a command line)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt
        except ImportError:  # Python ≥ 3.13: openssl reads the password on stdin
            return run(["openssl", "passwd", "-6", "-stdin"], input=password + "\n").strip()
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_SHA512))


def routes_v4() -> list[dict[str, object]]:
    import json

    out = run(["ip", "-j", "-4", "route", "show", "table", "all"], check=False)
    try:
        data = json.loads(out or "[]")
    except ValueError:
        return []
    return [r for r in data if isinstance(r, dict)]
