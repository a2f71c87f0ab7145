"""Fixtures that start a real Latchkey server for the supabase-auth compat suite.

The server binary is taken from ``LATCHKEY_BIN`` or, failing that, from
``<repo>/Server/.build/debug/latchkey``. When it does not exist every test that
needs the server is skipped (not errored).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import httpx
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # compat -> Tests -> Server -> <repo>
DEFAULT_BIN = REPO / "Server" / ".build" / "debug" / "latchkey"

STARTUP_TIMEOUT_S = 30.0
MAILBOX_TIMEOUT_S = 5.0
SHUTDOWN_GRACE_S = 10.0

# "… is 123456." as every default template says it: a bare six-digit run could be part of an
# address in the message (compat.fc3aae881396@example.com).
CODE_RE = re.compile(r"\bis (\d{6,10})\.")

# A GoTrue deployment's configuration, GoTrue's names only (issue #35): the suite runs against
# GoTrue's defaults (the `gotrue` profile: 6-character passwords, per-IP limits only behind a
# trusted header). Two values differ from GoTrue's defaults, as a test deployment of GoTrue sets
# them: the email budget (GoTrue's 30 an hour would stop a suite that sends more) and the wait
# between two codes to one address ("1ns": GoTrue reads 0 as its default minute).
SERVER_ENV = {
    "GOTRUE_SITE_URL": "http://localhost:3000",
    "GOTRUE_RATE_LIMIT_EMAIL_SENT": "1000",
    "GOTRUE_SMTP_MAX_FREQUENCY": "1ns",
    # Phone factors (#39), off unless turned on as on GoTrue; codes land in the dev mailbox.
    "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true",
    "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
    "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "1s",
}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as e:  # pragma: no cover - diagnostics only
        return f"<could not read {path}: {e}>"
    return "\n".join(text.splitlines()[-lines:]) or "<empty log>"


def supabase_client(url: str, **options):
    """supabase-py's client as an app makes it (no timer, no stored session), with a read timeout
    of 30 s instead of httpx's 5: the suite drives a debug build, whose unoptimised BoringSSL
    took 3.6 s for one scrypt at N=2^17 on a slow machine, and a password change runs two (the
    release binary: 1.1 s for both there). How fast is the benchmarks' question, not these tests'."""
    from supabase_auth import SyncGoTrueClient

    http = httpx.Client(timeout=httpx.Timeout(30.0), follow_redirects=True, http2=True)
    return SyncGoTrueClient(url=url, auto_refresh_token=False, persist_session=False, http_client=http, **options)


@dataclass
class LatchkeyServer:
    url: str
    data_dir: Path
    log_path: Path
    process: subprocess.Popen = field(repr=False)

    def mailbox(self, email: str) -> list[dict]:
        """All dev-mailbox messages addressed to ``email``, newest first."""
        resp = httpx.get(
            f"{self.url}/_dev/mailbox",
            params={"to": email},
            headers={"Accept": "application/json"},
            timeout=5.0,
            trust_env=False,
        )
        resp.raise_for_status()
        return list(resp.json().get("messages") or [])

    def message_ids(self, email: str) -> set[str]:
        """Ids of the messages already in ``email``'s mailbox (for ``latest_code(..., exclude=...)``)."""
        return {str(m.get("id")) for m in self.mailbox(email)}

    def latest_code(
        self,
        email: str,
        *,
        exclude: Iterable[str] = (),
        timeout: float = MAILBOX_TIMEOUT_S,
    ) -> str:
        """The 6-digit code in the newest message to ``email``.

        Messages whose id is in ``exclude`` are ignored, so a caller can wait for
        a message sent after a given point. Polls for up to ``timeout`` seconds.
        """
        excluded = {str(i) for i in exclude}
        deadline = time.monotonic() + timeout
        last: list[dict] = []
        while True:
            last = self.mailbox(email)
            fresh = [m for m in last if str(m.get("id")) not in excluded]
            if fresh:
                newest = fresh[0]
                match = CODE_RE.search(newest.get("text") or "")
                if match is None:
                    raise AssertionError(
                        f"newest message to {email!r} has no 6-digit code: {newest!r}"
                    )
                return match.group(1)
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"no new message to {email!r} within {timeout}s "
                    f"(mailbox holds {len(last)} message(s), {len(excluded)} excluded)"
                )
            time.sleep(0.1)


def _find_binary() -> Path:
    env_bin = os.environ.get("LATCHKEY_BIN")
    return Path(env_bin) if env_bin else DEFAULT_BIN


@contextlib.contextmanager
def running_server(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[LatchkeyServer]:
    """Starts ``latchkey serve`` on loopback over ``data_dir`` and stops it afterwards."""
    binary = _find_binary()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.skip(
            f"Latchkey binary not found or not executable at {binary} "
            "(build it with `swift build` in Server/, or set LATCHKEY_BIN)"
        )

    port = _free_port()
    log_path = data_dir / "server.log"
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, **SERVER_ENV, **(extra_env or {})}
    log_file = open(log_path, "wb")
    process = subprocess.Popen(
        [
            str(binary),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=str(data_dir),
    )

    def stop() -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=SHUTDOWN_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=SHUTDOWN_GRACE_S)
        log_file.close()

    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            code = process.poll()
            if code is not None:
                pytest.fail(
                    f"latchkey exited with status {code} before becoming healthy.\n"
                    f"--- tail of {log_path} ---\n{_tail(log_path)}",
                    pytrace=False,
                )
            try:
                if httpx.get(f"{url}/health", timeout=1.0, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() >= deadline:
                pytest.fail(
                    f"latchkey did not answer 200 on {url}/health within "
                    f"{STARTUP_TIMEOUT_S:.0f}s.\n--- tail of {log_path} ---\n{_tail(log_path)}",
                    pytrace=False,
                )
            time.sleep(0.1)
    except BaseException:
        stop()
        raise

    try:
        yield LatchkeyServer(url=url, data_dir=data_dir, log_path=log_path, process=process)
    finally:
        stop()


@pytest.fixture(scope="session")
def latchkey_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LatchkeyServer]:
    with running_server(tmp_path_factory.mktemp("latchkey-data")) as server:
        yield server
