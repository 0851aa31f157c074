"""The known-certificates file: the TLS certificate each eAPI switch presents, pinned as known_hosts pins SSH
host keys.

One entry a line, ``HOST[:PORT] sha256:<64 hex digits>`` — the SHA-256 of the DER certificate (``openssl x509
-outform der | sha256sum``); ``[v6-address]:PORT`` for IPv6; PORT defaults to 443; ``#`` starts a comment. The
file is ``--known-certs FILE``, else ``FABRICGEN_KNOWN_CERTS``, else ``~/.config/fabricgen/known_certs``.
Entries are written only by ``fabricgen trust`` (trust on first contact, never implicit); a certificate that
differs from its entry is never replaced there.

>>> parse_line("10.0.0.1 sha256:" + "ab" * 32)[:2]
('10.0.0.1', 443)
>>> parse_line("[2001:db8::1]:8443 sha256:" + "0f" * 32)[:2]
('2001:db8::1', 8443)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

DEFAULT_PATH = "~/.config/fabricgen/known_certs"
_FP = re.compile(r"sha256:[0-9a-f]{64}")


class CertsError(Exception):
    """A malformed known-certificates file, or a certificate that differs from its entry."""


def on_switch_command(port: int = 443) -> str:
    """The command that prints, run on the switch itself (its console, in ``bash``), the hex part of the
    fingerprint ``fabricgen trust`` records: the SHA-256 of the DER certificate eAPI serves on ``port``. Over the
    console it cannot be an impostor's; eAPI in a VRF listens in that VRF's namespace (``sudo ip netns exec
    ns-<VRF>`` before it).

    >>> on_switch_command(8443)
    'openssl s_client -connect 127.0.0.1:8443 </dev/null 2>/dev/null | openssl x509 -outform der | sha256sum'
    """
    return f"openssl s_client -connect 127.0.0.1:{port} </dev/null 2>/dev/null | openssl x509 -outform der | sha256sum"


def default_path(option: str | None = None) -> str:
    return os.path.expanduser(option or os.environ.get("FABRICGEN_KNOWN_CERTS") or DEFAULT_PATH)


def valid_fingerprint(text: str) -> bool:
    return bool(_FP.fullmatch(text))


def split_host(text: str, default_port: int = 443) -> tuple[str, int]:
    """``host``, ``host:port`` or ``[v6]:port`` → (host, port); ValueError when the port is not 1–65535, or a
    ``:`` or ``]`` promises one that is not there (``10.0.0.1:``, ``[2001:db8::1]x``, ``[2001:db8::1``).

    >>> split_host("[2001:db8::1]"), split_host("2001:db8::1"), split_host("leaf1:8443")
    (('2001:db8::1', 443), ('2001:db8::1', 443), ('leaf1', 8443))
    """
    if text.startswith("["):
        host, close, rest = text[1:].partition("]")
        if not close or (rest and not rest.startswith(":")):
            raise ValueError(text)
        sep, port = rest[:1], rest[1:]
    elif text.count(":") == 1:
        host, sep, port = text.partition(":")
    else:
        host, sep, port = text, "", ""
    if not host or (sep and not (port.isdigit() and 0 < int(port) < 65536)):
        raise ValueError(text)
    return host, int(port) if sep else default_port


def parse_line(line: str) -> tuple[str, int, str]:
    words = line.split()
    if len(words) != 2 or not valid_fingerprint(words[1].lower()):
        raise ValueError(line)
    host, port = split_host(words[0])
    return host, port, words[1].lower()


def load(path: str) -> dict[tuple[str, int], str]:
    """(host, port) → pinned fingerprint; a missing file pins nothing. A bad line raises :class:`CertsError`
    naming the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise CertsError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    out: dict[tuple[str, int], str] = {}
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            host, port, fp = parse_line(line)
        except ValueError:
            raise CertsError(f"{path}:{i}: expected `HOST[:PORT] sha256:<64 hex digits>`") from None
        out[(host, port)] = fp
    return out


def entry(host: str, port: int, fp: str) -> str:
    where = f"[{host}]" if ":" in host else host
    return f"{where}:{port} {fp}" if port != 443 else f"{where} {fp}"


def record(path: str, host: str, port: int, fp: str) -> bool:
    """Add ``host:port → fp`` to the file (created 0644 with its directory); False when already recorded. A
    different fingerprint already recorded raises :class:`CertsError` and changes nothing."""
    known = load(path).get((host, port))
    if known == fp:
        return False
    if known is not None:
        raise CertsError(f"{path}: {entry(host, port, known)} is recorded, but the device now presents {fp}; "
                         "if the switch's certificate really changed, delete that line and run `fabricgen trust` again")
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a", encoding="utf-8") as f:
        f.write(entry(host, port, fp) + "\n")
    return True
