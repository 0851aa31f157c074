"""A private, throw-away Nautobot for the tests: its own PostgreSQL cluster and Redis, bound to 127.0.0.1.

Nautobot runs from its own virtual environment (``FABRICGEN_NAUTOBOT_VENV``: ``pip install nautobot==3.2.7``
there; its pins are not fabricgen's). Nothing of the machine's own services is touched:

* PostgreSQL (Debian's ``postgresql-15`` binaries): ``initdb`` into a temporary directory, ``pg_ctl`` on a free
  port with its unix socket in that directory, TCP off. PostgreSQL refuses to run as root, so when the tests run as
  root the cluster belongs to ``nobody`` (the directory is handed to it); trust authentication, socket only.
* Redis: ``redis-server`` on a free port, bound to 127.0.0.1, no persistence.
* Nautobot: a generated ``nautobot_config.py`` (random ``SECRET_KEY``), ``nautobot-server migrate`` (about 5.5 min
  on 2 cores: the session fixture pays it once), a superuser with an API token, ``runserver --noreload``.

Run as a script (``python tests/nautobot_server.py DIR``) it starts the same server and prints its URL and the
token file's path, for working on the importer by hand; ``Ctrl-C`` or SIGTERM stops it.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    token: str
    timings: dict[str, float]


def missing(venv: str | None) -> str | None:
    """Why the server cannot start here, or ``None``."""
    if not venv or not (Path(venv) / "bin" / "nautobot-server").exists():
        return "FABRICGEN_NAUTOBOT_VENV is not a virtual environment with nautobot installed"
    if not (PG_BIN / "initdb").exists():
        return f"{PG_BIN}/initdb is missing (apt-get install postgresql-15)"
    if not shutil.which("redis-server"):
        return "redis-server is missing (apt-get install redis-server)"
    return None


def _as_postgres() -> dict[str, object]:
    """subprocess arguments that drop to ``nobody`` when running as root."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam("nobody")
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


CONFIG = """\
from nautobot.core.settings import *  # noqa: F403
from nautobot.core.settings_funcs import parse_redis_connection

SECRET_KEY = {secret!r}
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DEBUG = False
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "nautobot",
        "USER": "nautobot",
        "PASSWORD": "",
        "HOST": {socket_dir!r},
        "PORT": {pg_port},
    }}
}}
CACHES = {{
    "default": {{
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://127.0.0.1:{redis_port}/0",
        "OPTIONS": {{"CLIENT_CLASS": "django_redis.client.DefaultClient"}},
    }}
}}
CELERY_BROKER_URL = "redis://127.0.0.1:{redis_port}/1"
"""


@contextmanager
def nautobot(venv: str, workdir: Path, log=None) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    """Start the private Nautobot under ``workdir``; stop everything on exit."""
    timings: dict[str, float] = {}
    procs: list[subprocess.Popen[bytes]] = []
    pgdata = workdir / "pg"
    sock = workdir / "pgsock"
    drop = _as_postgres()
    pg_port, redis_port, http_port = free_port(), free_port(), free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    out = open(workdir / "server.log", "ab")  # noqa: SIM115
    pg_started = False
    try:
        sock.mkdir(exist_ok=True)
        if drop:
            os.chown(workdir, int(drop["user"]), int(drop["group"]))  # type: ignore[call-overload]
            os.chown(sock, int(drop["user"]), int(drop["group"]))  # type: ignore[call-overload]
        subprocess.run([str(PG_BIN / "initdb"), "-D", str(pgdata), "-U", "nautobot", "--auth=trust", "-E", "UTF8"],
                       check=True, stdout=out, stderr=out, **drop)  # type: ignore[call-overload]
        subprocess.run([str(PG_BIN / "pg_ctl"), "-D", str(pgdata), "-w", "-l", str(workdir / "pg.log"), "-o",
                        f"-p {pg_port} -k {sock} -c listen_addresses=''", "start"],
                       check=True, stdout=out, stderr=out, **drop)  # type: ignore[call-overload]
        pg_started = True
        subprocess.run([str(PG_BIN / "createdb"), "-h", str(sock), "-p", str(pg_port), "-U", "nautobot", "nautobot"],
                       check=True, stdout=out, stderr=out, **drop)  # type: ignore[call-overload]
        procs.append(subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                       "--save", "", "--appendonly", "no", "--dir", str(workdir)],
                                      stdout=out, stderr=out))
        root = workdir / "nautobot"
        root.mkdir(exist_ok=True)
        config = root / "nautobot_config.py"
        config.write_text(CONFIG.format(secret=secrets.token_urlsafe(50), socket_dir=str(sock), pg_port=pg_port,
                                        redis_port=redis_port))
        env = {**os.environ, "NAUTOBOT_ROOT": str(root), "NAUTOBOT_CONFIG": str(config)}
        server = [str(Path(venv) / "bin" / "nautobot-server"), "--config", str(config)]
        t0 = time.monotonic()
        subprocess.run([*server, "migrate", "--no-input"], check=True, env=env, stdout=out, stderr=out)
        timings["migrate_s"] = time.monotonic() - t0
        token = secrets.token_hex(20)
        script = (
            "from django.contrib.auth import get_user_model\n"
            "from nautobot.users.models import Token\n"
            "u = get_user_model().objects.create_superuser('fabricgen', 'fabricgen@example.invalid', "
            f"{secrets.token_urlsafe(16)!r})\n"
            f"Token.objects.create(user=u, key={token!r})\n"
        )
        subprocess.run([*server, "shell", "-c", script], check=True, env=env, stdout=out, stderr=out)
        procs.append(subprocess.Popen([*server, "runserver", f"127.0.0.1:{http_port}", "--noreload"], env=env,
                                      stdout=out, stderr=out, start_new_session=True))
        url = f"http://127.0.0.1:{http_port}"
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status/", timeout=10):
                    break
            except urllib.error.HTTPError:
                break  # answering (403 without a token): up
            except OSError:
                if time.monotonic() > deadline or procs[-1].poll() is not None:
                    raise RuntimeError(f"nautobot did not start; see {workdir / 'server.log'}") from None
                time.sleep(1)
        yield Server(url, token, timings)
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM) if proc.args[0] != "redis-server" else proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if pg_started:
            subprocess.run([str(PG_BIN / "pg_ctl"), "-D", str(pgdata), "-m", "fast", "stop"], stdout=out, stderr=out,
                           **drop)  # type: ignore[call-overload]
        out.close()


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stop)  # a background job ignores SIGINT: SIGTERM also stops it cleanly
    signal.signal(signal.SIGINT, _stop)
    where = Path(sys.argv[1]).resolve()
    with nautobot(os.environ["FABRICGEN_NAUTOBOT_VENV"], where) as srv:
        (where / "token").write_text(srv.token)
        print(srv.url, where / "token", srv.timings, flush=True)
        with suppress(KeyboardInterrupt):
            signal.pause()
