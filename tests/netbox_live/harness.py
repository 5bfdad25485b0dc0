"""A real NetBox on loopback, for proving that the export imports unchanged.

NetBox is NetBox's own PyPI wheel on Python 3.12, with Debian's PostgreSQL and Redis.
Building it is slow (``pip install`` and ``migrate`` take minutes on two cores), so
:func:`setup` does it once into a cache folder (``$WORKBENCH_NETBOX_CACHE``, default
``~/.cache/workbench-netbox``) and a run only starts what the cache holds:

- the migrated database is kept as ``netbox_template``; every run copies it into a
  fresh database (``CREATE DATABASE ... TEMPLATE``, about a second) and drops the copy
  afterwards, so runs never see each other's objects and the cache stays clean;
- PostgreSQL (as the ``postgres`` user when we are root: it refuses to run as root),
  Redis and NetBox's development server listen on free loopback ports only, and each is
  stopped by the PID we started, in a ``finally``.

:class:`Unavailable` carries the one-line reason a run cannot happen (no python3.12,
no PostgreSQL binaries, pip offline ...); the test turns it into a skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NETBOX_VERSION = "4.7.3"
USERNAME = "planner"
PASSWORD = "workbench-planner-1"
#: A v1 API token (40 hex digits) made at setup; the cache is private to this machine.
TOKEN = "0123456789abcdef0123456789abcdef01234567"
TEMPLATE_DB = "netbox_template"
PG_BIN_DIRS = ("/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
               "/usr/lib/postgresql/15/bin")  # fmt: skip


class Unavailable(Exception):
    """NetBox cannot run here; ``str()`` is the reason, for a pytest skip."""


def cache_dir() -> Path:
    """Where the venv, the configuration and the migrated database live."""
    given = os.environ.get("WORKBENCH_NETBOX_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "workbench-netbox"


def _pg_data() -> Path:
    """PostgreSQL's data folder: the postgres user cannot enter root's home, so when we
    are root it lives under /var/tmp, owned by postgres."""
    if os.geteuid() == 0:
        return Path("/var/tmp") / f"workbench-netbox-pgdata-{_cache_tag()}"
    return cache_dir() / "pgdata"


def _cache_tag() -> str:
    import hashlib

    return hashlib.sha256(str(cache_dir().resolve()).encode()).hexdigest()[:8]


def python312() -> str:
    """The Python 3.12 interpreter NetBox needs; Unavailable when there is none."""
    for candidate in ("python3.12", "/root/.pyenv/versions/3.12.1/bin/python3.12"):
        found = shutil.which(candidate)
        if found:
            probe = subprocess.run([found, "-c", "import sys; print(sys.version_info[:2])"],
                                   capture_output=True, text=True)  # fmt: skip
            if probe.returncode == 0 and "(3, 12)" in probe.stdout:
                return found
    raise Unavailable("no python3.12 interpreter (NetBox 4.7 needs Python 3.12)")


def pg_bin() -> Path:
    """The folder of PostgreSQL's server binaries; Unavailable when missing."""
    for folder in PG_BIN_DIRS:
        if (Path(folder) / "postgres").exists() and (Path(folder) / "initdb").exists():
            return Path(folder)
    raise Unavailable("no PostgreSQL server binaries (apt-get install postgresql)")


def redis_bin() -> str:
    found = shutil.which("redis-server")
    if not found:
        raise Unavailable("no redis-server (apt-get install redis-server)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres() -> dict[str, object]:
    """Popen arguments that run a command as the postgres user when we are root."""
    if os.geteuid() != 0:
        return {}
    try:
        pw = pwd.getpwnam("postgres")
    except KeyError:
        raise Unavailable(
            "running as root and there is no postgres user to run PostgreSQL"
        ) from None
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


def venv_bin(name: str) -> Path:
    return cache_dir() / "venv" / "bin" / name


def ready_marker() -> Path:
    return cache_dir() / "ready.json"


def is_ready() -> bool:
    """Whether :func:`setup` finished for this NetBox version."""
    try:
        info = json.loads(ready_marker().read_text())
    except (OSError, ValueError):
        return False
    return info.get("netbox") == NETBOX_VERSION and _pg_data().joinpath("PG_VERSION").exists()


CONFIG = """\
import os
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DATABASES = {"default": {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": os.environ["WB_NB_DB"], "USER": "postgres", "PASSWORD": "",
    "HOST": "127.0.0.1", "PORT": os.environ["WB_NB_PG_PORT"], "CONN_MAX_AGE": 300,
}}
_redis = {"HOST": "127.0.0.1", "PORT": int(os.environ["WB_NB_REDIS_PORT"]),
          "USERNAME": "", "PASSWORD": "", "SSL": False}
REDIS = {"tasks": dict(_redis, DATABASE=0), "caching": dict(_redis, DATABASE=1)}
SECRET_KEY = "{secret}"
API_TOKEN_PEPPERS = {1: "{pepper}"}
DEBUG = False
CENSUS_REPORTING_ENABLED = False
RELEASE_CHECK_URL = None
LOGIN_REQUIRED = True
# Django's upload limits stay at their defaults (DATA_UPLOAD_MAX_MEMORY_SIZE 2.5 MB),
# as a planner's NetBox has them: the export splits big lists into parts that fit.
MAX_PAGE_SIZE = 1000
"""


def _run(cmd: list[str], env: dict[str, str] | None = None, log=print, **kw) -> None:
    log("$ " + " ".join(str(c) for c in cmd))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise Unavailable(f"{cmd[0]} failed (exit {done.returncode}): " + " | ".join(tail))


def setup(log=print) -> None:
    """Build the cache: venv with NetBox, PostgreSQL cluster, migrated template
    database, the planner's login and token.  Idempotent; minutes the first time."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    py = python312()
    bins = pg_bin()
    redis_bin()
    if not venv_bin("python").exists():
        _run([py, "-m", "venv", str(root / "venv")], log=log)
    if not venv_bin("netbox").exists():
        _run([str(venv_bin("pip")), "install", "-q", f"netbox=={NETBOX_VERSION}"], log=log)
    conf = root / "instance" / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    if not (conf / "configuration.py").exists():
        text = CONFIG.replace("{secret}", secrets.token_urlsafe(48)).replace(
            "{pepper}", secrets.token_urlsafe(48)
        )
        (conf / "configuration.py").write_text(text)
    data = _pg_data()
    if not (data / "PG_VERSION").exists():
        if data.exists():
            shutil.rmtree(data)
        data.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(data, "postgres", "postgres")
        _run([str(bins / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres",
              "-E", "UTF8", "--locale=C"], log=log, **_as_postgres())  # fmt: skip
    with _services() as ports:
        env = _netbox_env(ports, TEMPLATE_DB)
        exists = subprocess.run(
            [str(bins / "psql"), "-h", "127.0.0.1", "-p", str(ports.pg), "-U", "postgres",
             "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{TEMPLATE_DB}'"],
            capture_output=True, text=True)  # fmt: skip
        if exists.stdout.strip() != "1":
            _run([str(bins / "createdb"), "-h", "127.0.0.1", "-p", str(ports.pg),
                  "-U", "postgres", TEMPLATE_DB], log=log)  # fmt: skip
        _run([str(venv_bin("netbox")), "migrate", "--no-input"], env=env, log=log)
        make_user = (
            "from users.models import User, Token\n"
            f"u = User.objects.filter(username={USERNAME!r}).first()\n"
            f"u = u or User.objects.create_superuser({USERNAME!r}, 'planner@localhost', {PASSWORD!r})\n"
            f"Token.objects.filter(plaintext={TOKEN!r}).exists() or "
            f"Token.objects.create(user=u, version=1, plaintext={TOKEN!r}, description='workbench harness')\n"
        )  # fmt: skip
        _run([str(venv_bin("netbox")), "shell", "-c", make_user], env=env, log=log)
    ready_marker().write_text(json.dumps({"netbox": NETBOX_VERSION, "pgdata": str(data)}))
    log(f"NetBox {NETBOX_VERSION} ready in {root}")


@dataclass
class Ports:
    pg: int
    redis: int


def _netbox_env(ports: Ports, database: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        NETBOX_ROOT=str(cache_dir() / "instance"),
        WB_NB_DB=database,
        WB_NB_PG_PORT=str(ports.pg),
        WB_NB_REDIS_PORT=str(ports.redis),
        PATH=f"{venv_bin('')}:{env.get('PATH', '/usr/bin:/bin')}",
    )
    return env


def _wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Unavailable(f"{what} exited with status {proc.returncode} while starting")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.2)
    raise Unavailable(f"{what} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, wait: float = 30.0) -> None:
    """Stop one process we started, by its PID; kill it if it will not go."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, sig)
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)


@contextlib.contextmanager
def _services() -> Iterator[Ports]:
    """PostgreSQL and Redis on free loopback ports for the duration of the block."""
    bins, data = pg_bin(), _pg_data()
    ports = Ports(free_port(), free_port())
    logs = cache_dir() / "logs"
    logs.mkdir(exist_ok=True)
    pg = redis = None
    try:
        with open(logs / "postgres.log", "ab") as out:
            pg = subprocess.Popen(
                [str(bins / "postgres"), "-D", str(data), "-p", str(ports.pg),
                 "-c", "listen_addresses=127.0.0.1", "-k", str(data),
                 "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **_as_postgres(),
            )  # fmt: skip
        redis_dir = cache_dir() / "redis"
        redis_dir.mkdir(exist_ok=True)
        with open(logs / "redis.log", "ab") as out:
            redis = subprocess.Popen(
                [redis_bin(), "--port", str(ports.redis), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(redis_dir)],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        _wait_port(ports.pg, pg, "PostgreSQL")
        _wait_port(ports.redis, redis, "Redis")
        for _ in range(50):  # accepting TCP is not yet accepting logins
            ok = subprocess.run([str(bins / "pg_isready"), "-h", "127.0.0.1", "-p", str(ports.pg)],
                                capture_output=True)  # fmt: skip
            if ok.returncode == 0:
                break
            time.sleep(0.2)
        yield ports
    finally:
        _stop(redis)
        _stop(pg, signal.SIGINT)  # SIGINT: PostgreSQL's fast shutdown


@dataclass
class NetBox:
    """A running NetBox: where it listens and how to log in."""

    url: str
    username: str = USERNAME
    password: str = PASSWORD
    token: str = TOKEN


@contextlib.contextmanager
def running_netbox(log=print) -> Iterator[NetBox]:
    """Start PostgreSQL, Redis and NetBox on a fresh copy of the migrated database."""
    if not is_ready():
        raise Unavailable(f"no NetBox cache in {cache_dir()}: run tests/netbox_live/setup.sh")
    bins = pg_bin()
    database = f"wb_run_{os.getpid()}_{secrets.token_hex(3)}"
    with _services() as ports:
        pg_args = ["-h", "127.0.0.1", "-p", str(ports.pg), "-U", "postgres"]
        _run([str(bins / "createdb"), *pg_args, "-T", TEMPLATE_DB, database], log=log)
        server = None
        try:
            port = free_port()
            with open(cache_dir() / "logs" / "netbox.log", "ab") as out:
                server = subprocess.Popen(
                    [str(venv_bin("netbox")), "runserver", f"127.0.0.1:{port}", "--noreload",
                     "--skip-checks"],
                    env=_netbox_env(ports, database), stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
            _wait_port(port, server, "NetBox", timeout=120)
            yield NetBox(f"http://127.0.0.1:{port}")
        finally:
            _stop(server)
            subprocess.run([str(bins / "dropdb"), *pg_args, "--if-exists", database],
                           capture_output=True)  # fmt: skip


if __name__ == "__main__":
    try:
        setup()
    except Unavailable as exc:
        print(f"NetBox harness unavailable: {exc}", file=sys.stderr)
        sys.exit(1)
