"""The simulated switches of :mod:`tests.simdevice` behind real sockets on 127.0.0.1: eAPI over HTTPS or HTTP,
NETCONF over SSH, and a bare SSH server that plays an impostor.

* :class:`EapiServer`: JSON-RPC ``runCmds`` at ``/command-api`` (Arista's eAPI), HTTP Basic authentication,
  each command answered by :meth:`tests.simdevice.EosSim.run`; TLS with a certificate made by
  :func:`make_certificate`. Every connection is logged: whether TLS completed, and per request the path,
  whether an ``Authorization`` header arrived and the commands.
* :class:`NetconfServer`: paramiko's SSH server with the ``netconf`` subsystem, RFC 6242 framing (``]]>]]>``
  for base:1.0, chunks for base:1.1 when both sides say so in their hellos), each RPC answered by
  :meth:`tests.simdevice.JunosSim.reply`. It logs every authentication method the client tried
  (``check_auth_password`` / ``check_auth_publickey`` / ``check_auth_none``) and every RPC.
* ``NetconfServer(netconf=False)`` is an SSH server that authenticates nobody: the impostor for any SSH driver;
  with ``shell=True`` it logs in the right user and answers an interactive shell that echoes and logs each line.

A device whose session is lost (``SimDevice.lose_session_after``) never answers again — eAPI drops each
connection without a response, NETCONF keeps the session open and silent — but every later request is still
logged: the log is what reached the device (had the path come back, it would have acted on it).

All servers run on daemon threads, serve one connection at a time per thread with socket timeouts, and stop when
:meth:`close` is called (the fixtures do).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import paramiko
from lxml import etree

from tests.simdevice import EosSim, JunosSim

NC_BASE = "urn:ietf:params:xml:ns:netconf:base:1.0"


# ------------------------------------------------------------------------------------------- certificates


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path
    der: bytes

    @property
    def fingerprint(self) -> str:
        return "sha256:" + hashlib.sha256(self.der).hexdigest()


def make_certificate(directory: Path, name: str, issuer: Certificate | None = None, ca: bool = False) -> Certificate:
    """A certificate for 127.0.0.1 (IP SAN) and ``localhost``: self-signed, or signed by ``issuer``; ``ca=True``
    makes a CA certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=2)))
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
    else:
        import ipaddress

        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
    if issuer is None:
        cert = builder.issuer_name(subject).sign(key, hashes.SHA256())
    else:
        issuer_cert = x509.load_pem_x509_certificate(issuer.cert.read_bytes())
        issuer_key = serialization.load_pem_private_key(issuer.key.read_bytes(), None)
        cert = builder.issuer_name(issuer_cert.subject).sign(issuer_key, hashes.SHA256())  # type: ignore[arg-type]
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return Certificate(cert_path, key_path, cert.public_bytes(serialization.Encoding.DER))


# ------------------------------------------------------------------------------------------------- eAPI


@dataclass
class EapiRequest:
    path: str
    authorization: bool
    user: str | None
    commands: list[str]


@dataclass
class EapiLog:
    connections: int = 0
    tls_failed: int = 0  # connections whose TLS handshake did not complete
    requests: list[EapiRequest] = field(default_factory=list)

    @property
    def commands(self) -> list[str]:
        """Every command that reached the device, in order (``enable``, which pyeapi prefixes, left out)."""
        return [c for r in self.requests for c in r.commands if c != "enable"]

    @property
    def authorization_seen(self) -> bool:
        return any(r.authorization for r in self.requests)


class EapiServer(ThreadingHTTPServer):
    """eAPI on 127.0.0.1:<free port> (or ``port``: an impostor on the address a switch had): HTTPS with
    ``certificate``, or plain HTTP without one."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, sim: EosSim, username: str, password: str, certificate: Certificate | None,
                 port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _EapiHandler)
        self.sim, self.username, self.password = sim, username, password
        self.log = EapiLog()
        self.lock = threading.Lock()
        self.context: ssl.SSLContext | None = None
        if certificate is not None:
            self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.context.load_cert_chain(certificate.cert, certificate.key)
        self.timeout = 5
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(5)
        with self.lock:
            self.log.connections += 1
        if self.context is not None:
            try:
                request = self.context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                with self.lock:
                    self.log.tls_failed += 1
                return
        super().finish_request(request, client_address)

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(5)


class _EapiHandler(BaseHTTPRequestHandler):
    server: EapiServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        srv = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        auth = self.headers.get("Authorization")
        user = None
        if auth and auth.startswith("Basic "):
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        try:
            req = json.loads(body)
            params = req["params"]
            cmds = list(params["cmds"])
        except (ValueError, KeyError, TypeError):
            self._reply(400, {"error": "bad request"})
            return
        names = [c if isinstance(c, str) else c.get("cmd", "") for c in cmds]
        with srv.lock:
            srv.log.requests.append(EapiRequest(self.path, auth is not None, user, names))
            if self.path != "/command-api":
                self._reply(404, {"error": "not found"})
                return
            if user != srv.username or password != srv.password:
                self._reply(401, {"error": "Unauthorized"})
                return
            results = []
            try:
                for c in cmds:
                    results.append(srv.sim.run(c, params.get("format") or "json"))
            except ConnectionResetError:
                self.close_connection = True  # the device is gone: no answer, the connection just drops
                self.connection.close()
                return
            except Exception as exc:  # an unknown command: eAPI's error object
                self._reply(200, {"jsonrpc": "2.0", "id": req.get("id"), "error": {
                    "code": 1002, "message": f"CLI command {len(results) + 1} of {len(cmds)} failed: {exc}",
                    "data": [*results, {"errors": [str(exc)]}]}})
                return
        self._reply(200, {"jsonrpc": "2.0", "id": req.get("id"), "result": results})

    def _reply(self, status: int, doc: dict[str, Any]) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# ---------------------------------------------------------------------------------------- SSH / NETCONF


@dataclass
class SshLog:
    connections: int = 0
    auth_attempts: list[str] = field(default_factory=list)  # "password admin", "publickey admin", "none admin"
    rpcs: list[str] = field(default_factory=list)  # tag of every RPC that reached the device
    shell: list[str] = field(default_factory=list)  # every line typed into an interactive shell (shell=True)
    framing: str = ""  # "1.0" or "1.1", as negotiated by the hellos

    @property
    def authentication_attempted(self) -> bool:
        return bool(self.auth_attempts)


class _Iface(paramiko.ServerInterface):
    def __init__(self, server: NetconfServer) -> None:
        self.server = server
        self.subsystem = threading.Event()

    def _note(self, what: str) -> None:
        with self.server.lock:
            self.server.log.auth_attempts.append(what)

    def get_allowed_auths(self, username: str) -> str:
        return "password,publickey"

    def check_auth_none(self, username: str) -> int:
        self._note(f"none {username}")
        return paramiko.AUTH_FAILED

    def check_auth_password(self, username: str, password: str) -> int:
        self._note(f"password {username}")
        ok = (self.server.netconf or self.server.shell) and (
            (username, password) == (self.server.username, self.server.password))
        return paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED

    def check_auth_publickey(self, username: str, key: paramiko.PKey) -> int:
        self._note(f"publickey {username}")
        return paramiko.AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, channel: paramiko.Channel, *args: Any) -> bool:
        return self.server.shell

    def check_channel_shell_request(self, channel: paramiko.Channel) -> bool:
        if self.server.shell:
            self.subsystem.set()
        return self.server.shell

    def check_channel_subsystem_request(self, channel: paramiko.Channel, name: str) -> bool:
        if name == "netconf" and self.server.netconf:
            self.subsystem.set()
            return True
        return False


class NetconfServer:
    """NETCONF over SSH on 127.0.0.1:<free port> with ``host_key``, answering via ``sim`` (a JunosSim).

    ``netconf=False``: an SSH server that refuses every login and every subsystem, logging what it was offered.
    ``base11``: advertise base:1.1 (chunked framing once the client advertises it too)."""

    def __init__(self, sim: JunosSim | None, host_key: paramiko.PKey, username: str = "admin", password: str = "",
                 netconf: bool = True, base11: bool = True, shell: bool = False,
                 prompt: str = "admin@leaf1:~$ ", answer: Callable[[str], str] | None = None) -> None:
        self.sim, self.host_key, self.username, self.password = sim, host_key, username, password
        self.netconf, self.base11, self.shell, self.prompt = netconf, base11, shell, prompt.encode()
        self.answer = answer  # shell: command → its output (e.g. NxosSim.send_command); None echoes only
        self.log = SshLog()
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.1)
        self._threads: list[threading.Thread] = []
        self._transports: list[paramiko.Transport] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)
        self._accept.start()

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    def known_hosts_line(self) -> str:
        return f"[127.0.0.1]:{self.port} {self.host_key.get_name()} {self.host_key.get_base64()}\n"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            with self.lock:
                self.log.connections += 1
            t = threading.Thread(target=self._session, args=(sock,), daemon=True)
            self._threads.append(t)
            t.start()

    def _session(self, sock: socket.socket) -> None:
        sock.settimeout(10)
        transport = paramiko.Transport(sock)
        self._transports.append(transport)
        transport.add_server_key(self.host_key)
        iface = _Iface(self)
        try:
            transport.start_server(server=iface)
            chan, deadline = None, time.monotonic() + 10
            while chan is None and transport.is_active() and not self._stop.is_set() and time.monotonic() < deadline:
                chan = transport.accept(0.1)  # short waits: close() ends a session that never opens a channel
            if chan is None or not iface.subsystem.wait(5):
                return
            if self.shell:
                self._shell(chan)
            else:
                self._netconf(chan)
        except (paramiko.SSHException, EOFError, OSError):
            return
        finally:
            transport.close()

    def _shell(self, chan: paramiko.Channel) -> None:
        """A shell that only echoes and prompts (``prompt``: a Linux one, or ``leaf1# `` for NX-OS): every line is
        logged, ``exit`` ends it — what netmiko needs to log in and to say goodbye."""
        prompt = self.prompt
        chan.settimeout(10)
        chan.sendall(prompt)
        buf = b""
        while not self._stop.is_set():
            data = chan.recv(4096)
            if not data:
                return
            buf += data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                text = line.decode(errors="replace")
                with self.lock:
                    self.log.shell.append(text)
                if text.strip() == "exit":
                    return
                out = self.answer(text.strip()) if self.answer and text.strip() else ""
                body = "".join(f"{x}\r\n" for x in out.splitlines()).encode()
                chan.sendall(line + b"\r\n" + body + prompt)

    # ----------------------------------------------------------------------- NETCONF framing (RFC 6242)
    def _netconf(self, chan: paramiko.Channel) -> None:
        chan.settimeout(10)
        caps = ["urn:ietf:params:netconf:base:1.0", *(["urn:ietf:params:netconf:base:1.1"] if self.base11 else []),
                "http://xml.juniper.net/netconf/junos/1.0"]
        hello = (f'<hello xmlns="{NC_BASE}"><capabilities>' + "".join(f"<capability>{c}</capability>" for c in caps)
                 + "</capabilities><session-id>4242</session-id></hello>]]>]]>")
        chan.sendall(hello.encode())
        buf = b""
        client_hello, buf = self._read10(chan, buf)
        if client_hello is None:
            return
        chunked = self.base11 and b"urn:ietf:params:netconf:base:1.1" in client_hello
        with self.lock:
            self.log.framing = "1.1" if chunked else "1.0"
        while not self._stop.is_set():
            msg, buf = self._read11(chan, buf) if chunked else self._read10(chan, buf)
            if msg is None:
                return
            reply, done = self._answer(msg)
            if reply is None:  # the device is gone: whatever still arrives is logged and never answered
                continue
            data = reply.encode()
            chan.sendall(b"\n#%d\n" % len(data) + data + b"\n##\n" if chunked else data + b"]]>]]>")
            if done:
                return

    @staticmethod
    def _recv(chan: paramiko.Channel, buf: bytes) -> bytes | None:
        data = chan.recv(65536)
        return None if not data else buf + data

    def _read10(self, chan: paramiko.Channel, buf: bytes) -> tuple[bytes | None, bytes]:
        while b"]]>]]>" not in buf:
            more = self._recv(chan, buf)
            if more is None:
                return None, buf
            buf = more
        msg, _, rest = buf.partition(b"]]>]]>")
        return msg, rest

    def _read11(self, chan: paramiko.Channel, buf: bytes) -> tuple[bytes | None, bytes]:
        out = b""
        while True:
            while not (buf.startswith(b"\n#") and b"\n" in buf[2:]):
                if len(buf) >= 2 and not buf.startswith(b"\n#"):
                    return None, buf  # a framing error ends the session
                more = self._recv(chan, buf)
                if more is None:
                    return None, buf
                buf = more
            header, _, rest = buf[2:].partition(b"\n")
            if header == b"#":
                return out, rest
            size = int(header)
            while len(rest) < size:
                more = self._recv(chan, rest)
                if more is None:
                    return None, rest
                rest = more
            out, buf = out + rest[:size], rest[size:]

    def _answer(self, msg: bytes) -> tuple[str | None, bool]:
        """(reply text or None when the device is gone, whether the session ends)."""
        root = etree.fromstring(msg.strip())
        mid = root.get("message-id", "")
        body = next((c for c in root if isinstance(c.tag, str)), None)
        if body is None:
            return None, True
        tag = etree.QName(body).localname
        with self.lock:
            self.log.rpcs.append(tag)
        if self.sim is not None and self.sim.dev.dead:
            return None, False
        head = f'<rpc-reply xmlns="{NC_BASE}" xmlns:junos="http://xml.juniper.net/junos/23.4R0/junos" ' \
               f'message-id="{mid}">'
        if tag == "close-session":
            return f"{head}<ok/></rpc-reply>", True
        assert self.sim is not None
        for el in body.iter():  # JunosSim reads Junos RPCs without a namespace, as PyEZ builds them
            if isinstance(el.tag, str):
                el.tag = etree.QName(el).localname
        dev = self.sim.dev
        try:
            dev.receive(tag)
            text = self.sim.reply(body)
            dev.after(tag if tag != "commit-configuration" or body.find("confirmed") is None
                      else "commit-configuration confirmed")
        except ConnectionResetError:
            return None, False
        inner = text.split(">", 1)[1].rsplit("</rpc-reply>", 1)[0]
        return head + inner + "</rpc-reply>", False

    def close(self) -> None:
        self._stop.set()
        for t in self._transports:
            t.close()
        self._accept.join(5)
        for t in self._threads:
            t.join(5)
        self._listener.close()
