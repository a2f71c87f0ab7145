"""Two real `latchkey serve` processes on one PostgreSQL database.

Needs ``LATCHKEY_TEST_DATABASE_URL`` (scripts/test sets it when PostgreSQL is installed);
skipped otherwise. Most pairs share a data folder (the server secret), as instances on one
machine may; the last tests give each instance a folder of its own and the secret from the
environment, as a container platform runs them. Each pair has a schema of its own.
"""

from __future__ import annotations

import base64
import concurrent.futures
import os
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from conftest import CODE_RE, _find_binary, _free_port, _tail

DATABASE_URL = os.environ.get("LATCHKEY_TEST_DATABASE_URL", "")
PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.skipif(
    not DATABASE_URL,
    reason="multi-instance tests need PostgreSQL: set LATCHKEY_TEST_DATABASE_URL or install postgresql",
)


class Instance:
    def __init__(
        self, binary: Path, data_dir: Path, schema: str, name: str, extra_env: dict[str, str], *, environment_only: bool = False
    ):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / f"{name}.log"
        if environment_only:
            # Exactly the given environment (a GoTrue deployment's): no Latchkey setting at all.
            inherited = {k: v for k, v in os.environ.items() if not k.startswith(("LATCHKEY_", "GOTRUE_"))}
            env = {**inherited, **extra_env}
        else:
            env = {
                **os.environ,
                "DATABASE_URL": DATABASE_URL,
                "LATCHKEY_DB_SCHEMA": schema,
                "LATCHKEY_DB_POOL_SIZE": "8",
                "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
                "GOTRUE_SMTP_MAX_FREQUENCY": "0",
                # Latchkey's defaults: per-IP limits count (the pair shares them).
                "LATCHKEY_PROFILE": "strict",
                **extra_env,
            }
        self.log_file = open(self.log_path, "wb")
        command = [str(binary), "serve"]
        if environment_only:
            env["PORT"] = str(self.port)
        else:
            command += ["--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(data_dir)]
        self.process = subprocess.Popen(
            command,
            cwd=data_dir,
            stdin=subprocess.DEVNULL,
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"{name} exited early:\n{_tail(self.log_path)}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} did not become healthy:\n{_tail(self.log_path)}")
            time.sleep(0.1)
        self.client = httpx.Client(base_url=self.url, timeout=30.0, trust_env=False)

    def post(self, path: str, body: dict, token: str | None = None) -> httpx.Response:
        headers = {"X-Supabase-Api-Version": "2024-01-01"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.client.post(path, json=body, headers=headers)

    def code(self, email: str) -> str:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            messages = self.client.get("/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"}).json()
            for message in messages.get("messages") or []:
                match = CODE_RE.search(message.get("text") or "")
                if match:
                    return match.group(1)
            time.sleep(0.1)
        raise AssertionError(f"no code for {email}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self.client.close()
        self.log_file.close()


def start_pair(tmp_path: Path, otp_limit: int):
    binary = _find_binary()
    if not binary.is_file():
        pytest.skip(f"no latchkey binary at {binary}")
    schema = "mi_" + uuid.uuid4().hex[:12]
    extra = {
        "LATCHKEY_REFRESH_REUSE_INTERVAL": "0",
        "LATCHKEY_RATE_LIMIT_OTP": str(otp_limit),
        "LATCHKEY_RATE_LIMIT_VERIFY": "100000",
        "LATCHKEY_RATE_LIMIT_TOKEN": "100000",
        "LATCHKEY_RATE_LIMIT_EMAIL_SENT": "100000",
        "LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS": "100000",
    }
    # The first instance creates the keys in the shared folder and migrates; the second then
    # starts on both.
    first = Instance(binary, tmp_path, schema, "a", extra)
    try:
        second = Instance(binary, tmp_path, schema, "b", extra)
    except BaseException:
        first.stop()
        raise
    return first, second


@pytest.fixture
def pair(tmp_path: Path):
    first, second = start_pair(tmp_path, otp_limit=100000)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def limited_pair(tmp_path: Path):
    first, second = start_pair(tmp_path, otp_limit=5)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def test_one_code_sent_to_both_instances_at_once_yields_one_session(pair):
    a, b = pair
    email = f"race-{uuid.uuid4().hex[:8]}@example.com"
    assert a.post("/signup", {"email": email, "password": PASSWORD}).status_code == 200
    code = b.code(email)  # the mailbox is in the shared database
    barrier = threading.Barrier(8)

    def submit(instance):
        barrier.wait()
        return instance.post("/verify", {"type": "signup", "email": email, "token": code}).status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(submit, [a, b] * 4))
    assert statuses.count(200) == 1, statuses


def test_a_refresh_token_rotated_on_one_instance_is_reuse_on_the_other(pair):
    a, b = pair
    email = f"rotate-{uuid.uuid4().hex[:8]}@example.com"
    a.post("/signup", {"email": email, "password": PASSWORD})
    session = a.post("/verify", {"type": "signup", "email": email, "token": a.code(email)}).json()
    old = session["refresh_token"]
    rotated = a.post("/token?grant_type=refresh_token", {"refresh_token": old})
    assert rotated.status_code == 200
    reused = b.post("/token?grant_type=refresh_token", {"refresh_token": old})
    assert reused.status_code == 400
    assert reused.json()["code"] == "refresh_token_already_used"
    # Reuse ends the session everywhere: the successor is dead on the first instance too.
    successor = a.post("/token?grant_type=refresh_token", {"refresh_token": rotated.json()["refresh_token"]})
    assert successor.status_code == 400


def test_a_rate_limit_reached_through_one_instance_holds_on_the_other(limited_pair):
    a, b = limited_pair
    email = f"limit-{uuid.uuid4().hex[:8]}@example.com"
    statuses = [a.post("/otp", {"email": email}).status_code for _ in range(3)]
    statuses += [b.post("/otp", {"email": email}).status_code for _ in range(2)]
    assert statuses == [200] * 5
    limited = b.post("/otp", {"email": email})
    assert limited.status_code == 429
    assert limited.json()["code"] == "over_request_rate_limit"
    assert a.post("/otp", {"email": email}).status_code == 429


def test_sigkill_mid_load_loses_nothing_committed_and_the_other_keeps_serving(pair):
    a, b = pair
    run = uuid.uuid4().hex[:8]
    committed: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def load(worker: int) -> None:
        index = 0
        while not stop.is_set():
            email = f"kill-{run}-{worker}-{index}@example.com"
            index += 1
            try:
                response = a.post("/signup", {"email": email, "password": PASSWORD})
            except httpx.HTTPError:
                continue
            if response.status_code == 200:
                with lock:
                    committed.append(email)

    threads = [threading.Thread(target=load, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    a.process.send_signal(signal.SIGKILL)
    a.process.wait(timeout=10)
    stop.set()
    for thread in threads:
        thread.join(timeout=40)
    assert len(committed) >= 5, "the load did not get going before the kill"

    # Every sign-up the dead instance answered 200 is in the database: the surviving instance
    # knows the account and its password (it is only waiting for its email confirmation).
    for email in committed:
        answer = b.post("/token?grant_type=password", {"email": email, "password": PASSWORD})
        assert answer.json().get("code") == "email_not_confirmed", (email, answer.text)
    fresh = f"after-{run}@example.com"
    assert b.post("/signup", {"email": fresh, "password": PASSWORD}).status_code == 200
    assert b.post("/verify", {"type": "signup", "email": fresh, "token": b.code(fresh)}).status_code == 200


def test_migrate_reports_the_postgres_store_and_its_migrations(tmp_path: Path):
    binary = _find_binary()
    if not binary.is_file():
        pytest.skip(f"no latchkey binary at {binary}")
    schema = "mig_" + uuid.uuid4().hex[:12]
    env = {**os.environ, "LATCHKEY_DB_SCHEMA": schema}
    runs = [
        subprocess.run(
            [str(binary), "migrate", "--database", DATABASE_URL, "--data-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=60, env=env)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert f"(schema {schema})" in run.stdout and run.stdout.startswith("PostgreSQL at 127.0.0.1")
        assert "applied 1:" in run.stdout and "applied 6:" in run.stdout
    # Run twice, the migrations are listed once each.
    assert runs[1].stdout.count("applied 1:") == 1


def _secret() -> str:
    return base64.b64encode(os.urandom(32)).decode()


JWT_MODES = {
    # A shared HS256 secret, as GoTrue deployments run.
    "hs256": lambda: {"GOTRUE_JWT_SECRET": "a-shared-jwt-secret-for-every-instance-" + uuid.uuid4().hex},
    # Signing keys stored in the database, sealed under the server secret.
    "stored-keys": lambda: {},
}


@pytest.mark.parametrize("mode", sorted(JWT_MODES))
def test_instances_configured_by_environment_alone_agree_on_every_token(tmp_path: Path, mode: str):
    """No shared folder: each instance has a data folder of its own and the secret from the
    environment, as a container platform runs them."""
    binary = _find_binary()
    if not binary.is_file():
        pytest.skip(f"no latchkey binary at {binary}")
    schema = "env_" + uuid.uuid4().hex[:12]
    extra = {
        "LATCHKEY_SERVER_SECRET": _secret(),
        "GOTRUE_JWT_ISSUER": "https://auth.example.com",
        "LATCHKEY_REFRESH_REUSE_INTERVAL": "0",
        **JWT_MODES[mode](),
    }
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = Instance(binary, tmp_path / "a", schema, "a", extra)
    try:
        b = Instance(binary, tmp_path / "b", schema, "b", extra)
    except BaseException:
        a.stop()
        raise
    try:
        assert not (tmp_path / "a" / "server-secret").exists(), "the secret came from the environment"
        email = f"env-{uuid.uuid4().hex[:8]}@example.com"
        assert a.post("/signup", {"email": email, "password": PASSWORD}).status_code == 200
        session = a.post("/verify", {"type": "signup", "email": email, "token": a.code(email)}).json()
        # An access token from one is good on the other.
        me = b.client.get("/user", headers={"Authorization": f"Bearer {session['access_token']}"})
        assert me.status_code == 200, me.text
        # A refresh token issued by one rotates on the other, and that one's successor on the first.
        rotated = b.post("/token?grant_type=refresh_token", {"refresh_token": session["refresh_token"]})
        assert rotated.status_code == 200, rotated.text
        again = a.post("/token?grant_type=refresh_token", {"refresh_token": rotated.json()["refresh_token"]})
        assert again.status_code == 200, again.text
        # Reuse on either ends the session on both.
        reused = a.post("/token?grant_type=refresh_token", {"refresh_token": session["refresh_token"]})
        assert reused.json()["code"] == "refresh_token_already_used"
        dead = b.post("/token?grant_type=refresh_token", {"refresh_token": again.json()["refresh_token"]})
        assert dead.status_code == 400
    finally:
        a.stop()
        b.stop()


@pytest.mark.parametrize("mode", sorted(JWT_MODES))
def test_an_instance_with_another_server_secret_refuses_to_start(tmp_path: Path, mode: str):
    binary = _find_binary()
    if not binary.is_file():
        pytest.skip(f"no latchkey binary at {binary}")
    schema = "sec_" + uuid.uuid4().hex[:12]
    jwt = JWT_MODES[mode]()
    (tmp_path / "a").mkdir()
    a = Instance(binary, tmp_path / "a", schema, "a", {"LATCHKEY_SERVER_SECRET": _secret(), **jwt})
    try:
        for name, env in [
            ("other-env", {"LATCHKEY_SERVER_SECRET": _secret()}),
            ("folder", {}),  # the second folder's own generated secret
        ]:
            folder = tmp_path / name
            folder.mkdir()
            run = subprocess.run(
                [str(binary), "serve", "--port", str(_free_port()), "--data-dir", str(folder)],
                capture_output=True, text=True, timeout=60,
                env={**os.environ, "DATABASE_URL": DATABASE_URL, "LATCHKEY_DB_SCHEMA": schema, **jwt, **env})
            assert run.returncode != 0, (name, run.stdout)
            assert "not the one this database was started with" in run.stderr, (name, run.stderr)
        # The first instance is unaffected.
        assert a.client.get("/health").status_code == 200
    finally:
        a.stop()


# A GoTrue deployment's environment file as a docker-compose `env_file` holds it: GoTrue's names
# only, one database, every replica with an empty folder of its own.
GOTRUE_ENV_FILE = """\
GOTRUE_API_HOST=127.0.0.1
API_EXTERNAL_URL=http://localhost:9999
GOTRUE_DB_DRIVER=postgres
GOTRUE_DB_DATABASE_URL={database_url}
GOTRUE_DB_DB_NAMESPACE={schema}
GOTRUE_SITE_URL=http://localhost:3000
GOTRUE_JWT_SECRET={jwt_secret}
GOTRUE_JWT_EXP=3600
GOTRUE_JWT_AUD=authenticated
GOTRUE_JWT_DEFAULT_GROUP_NAME=authenticated
GOTRUE_JWT_ADMIN_ROLES=service_role
GOTRUE_DISABLE_SIGNUP=false
GOTRUE_MAILER_AUTOCONFIRM=true
GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL=0
GOTRUE_EXTERNAL_PHONE_ENABLED=false
GOTRUE_SMTP_ADMIN_EMAIL=admin@example.com
GOTRUE_RATE_LIMIT_EMAIL_SENT=1000
"""


def _read_env_file(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))


def test_three_replicas_from_a_gotrue_environment_file_agree(tmp_path: Path):
    """Issue #35: no Latchkey setting and no shared folder; the server secret is derived from
    GOTRUE_JWT_SECRET on each. Sign up through one, refresh through another, reuse the first
    token through the third: the reuse is detected and every replica refuses the family."""
    binary = _find_binary()
    if not binary.is_file():
        pytest.skip(f"no latchkey binary at {binary}")
    schema = "gt_" + uuid.uuid4().hex[:12]
    env_file = tmp_path / "gotrue.env"
    env_file.write_text(GOTRUE_ENV_FILE.format(
        database_url=DATABASE_URL, schema=schema, jwt_secret="a-gotrue-jwt-secret-" + uuid.uuid4().hex))
    env = _read_env_file(env_file.read_text())
    replicas: list[Instance] = []
    try:
        for name in ["a", "b", "c"]:
            (tmp_path / name).mkdir()
            replicas.append(Instance(binary, tmp_path / name, schema, name, env, environment_only=True))
        a, b, c = replicas
        for replica in replicas:
            assert "derived from the JWT secret" in replica.log_path.read_text()
            assert not (replica.log_path.parent / "latchkey-data" / "server-secret").exists()
        email = f"replica-{uuid.uuid4().hex[:8]}@example.com"
        # An 8-character password, as GoTrue's default minimum (6) accepts.
        signed_up = a.post("/signup", {"email": email, "password": "hunter22"})
        assert signed_up.status_code == 200, signed_up.text
        session = signed_up.json()
        assert session["refresh_token"], session
        print(f"\na {a.url}: POST /signup (8-character password) -> {signed_up.status_code}")
        rotated = b.post("/token?grant_type=refresh_token", {"refresh_token": session["refresh_token"]})
        assert rotated.status_code == 200, rotated.text
        print(f"b {b.url}: refresh a's token -> {rotated.status_code}")
        for replica in replicas:
            me = replica.client.get("/user", headers={"Authorization": f"Bearer {rotated.json()['access_token']}"})
            assert me.status_code == 200, (replica.url, me.text)
        reused = c.post("/token?grant_type=refresh_token", {"refresh_token": session["refresh_token"]})
        assert reused.status_code == 400, reused.text
        assert reused.json()["code"] == "refresh_token_already_used", reused.text
        print(f"c {c.url}: reuse a's first token -> {reused.status_code} {reused.json()['code']}")
        for replica in replicas:
            dead = replica.post("/token?grant_type=refresh_token", {"refresh_token": rotated.json()["refresh_token"]})
            assert dead.status_code == 400, (replica.url, dead.text)
            print(f"{replica.url}: successor after reuse -> {dead.status_code} {dead.json().get('code')}")
        # Another JWT secret on the same database derives another server secret: it refuses to start.
        (tmp_path / "d").mkdir()
        run = subprocess.run(
            [str(binary), "serve"], cwd=tmp_path / "d", capture_output=True, text=True, timeout=60,
            env={**{k: v for k, v in os.environ.items() if not k.startswith(("LATCHKEY_", "GOTRUE_"))}, **env,
                 "PORT": str(_free_port()), "GOTRUE_JWT_SECRET": "another-secret-" + uuid.uuid4().hex})
        assert run.returncode != 0, run.stdout
        assert "derived from the JWT secret (GOTRUE_JWT_SECRET) is not the one this database was started with" in run.stderr
        # An explicit secret still wins over the derived one, and a mismatch still refuses.
        (tmp_path / "e").mkdir()
        run = subprocess.run(
            [str(binary), "serve"], cwd=tmp_path / "e", capture_output=True, text=True, timeout=60,
            env={**{k: v for k, v in os.environ.items() if not k.startswith(("LATCHKEY_", "GOTRUE_"))}, **env,
                 "PORT": str(_free_port()), "LATCHKEY_SERVER_SECRET": _secret()})
        assert run.returncode != 0, run.stdout
        assert "from LATCHKEY_SERVER_SECRET" in run.stderr, run.stderr
    finally:
        for replica in replicas:
            replica.stop()
