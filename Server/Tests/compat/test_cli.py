"""The `latchkey` CLI against the data folder of a running server."""

import contextlib
import json
import subprocess
import time
import uuid


from conftest import _find_binary as binary_path
from conftest import supabase_client


def run_cli(*args):
    return subprocess.run([str(binary_path()), *args], capture_output=True, text=True, timeout=60)


def test_mailbox_and_migrate_read_the_data_folder(latchkey_server):
    client = supabase_client(latchkey_server.url)
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    client.sign_up({"email": email, "password": "correct horse battery staple " + uuid.uuid4().hex[:6]})

    # The server delivers from its outbox in the background: wait for the message to arrive.
    deadline = time.monotonic() + 10
    while True:
        result = run_cli("mailbox", "--data-dir", str(latchkey_server.data_dir), "--to", email, "--json")
        assert result.returncode == 0, result.stderr
        messages = json.loads(result.stdout)["messages"]
        if messages or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert messages[0]["to"] == [email]
    assert messages[0]["subject"] == "Confirm your email address"
    assert latchkey_server.latest_code(email) in messages[0]["text"]

    text = run_cli("mailbox", "--data-dir", str(latchkey_server.data_dir), "--to", email)
    assert "Confirm your email address" in text.stdout

    migrate = run_cli("migrate", "--data-dir", str(latchkey_server.data_dir))
    assert migrate.returncode == 0, migrate.stderr
    assert "applied 1:" in migrate.stdout


def test_cli_reports_a_missing_database(tmp_path):
    result = run_cli("mailbox", "--data-dir", str(tmp_path / "nowhere"))
    assert result.returncode != 0
    assert "No database" in result.stderr


def test_sigterm_finishes_requests_in_flight_then_exits(tmp_path):
    """Graceful shutdown: requests already sent are answered, then the process exits 0."""
    import os
    import signal
    import subprocess

    import httpx

    from conftest import _free_port, _tail

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "server.log"
    env = {**os.environ, "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "17", "GOTRUE_MAILER_AUTOCONFIRM": "true",
           "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "1000"}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(binary_path()), "serve", "--port", str(port), "--data-dir", str(tmp_path)],
            stdout=log, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1, trust_env=False).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, _tail(log_path)
                time.sleep(0.1)
            email = f"drain-{uuid.uuid4().hex[:8]}@example.com"
            password = "correct horse battery staple " + uuid.uuid4().hex[:6]
            assert httpx.post(f"{url}/signup", json={"email": email, "password": password}, trust_env=False).status_code == 200

            import json as jsonlib
            import socket

            body = jsonlib.dumps({"email": email, "password": password}).encode()
            request = (
                f"POST /token?grant_type=password HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode() + body
            # Six whole requests on open connections; scrypt keeps them in flight while SIGTERM arrives.
            sockets = []
            for _ in range(6):
                connection = socket.create_connection(("127.0.0.1", port), timeout=60)
                connection.sendall(request)
                sockets.append(connection)
            time.sleep(0.3)
            process.send_signal(signal.SIGTERM)
            statuses = []
            for connection in sockets:
                answer = b""
                while chunk := connection.recv(65536):
                    answer += chunk
                connection.close()
                statuses.append(int(answer.split(b" ", 2)[1]) if answer else None)
            assert statuses == [200] * 6, statuses
            assert process.wait(timeout=30) == 0, _tail(log_path)
            # And it no longer listens.
            try:
                httpx.get(f"{url}/health", timeout=1, trust_env=False)
                raise AssertionError("still listening after shutdown")
            except httpx.ConnectError:
                pass
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_users_commands_manage_the_store_with_the_server_stopped(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    created = run_cli("users", "create", *data, "--email", "Ops@Example.com", "--password",
                      "correct horse battery staple", "--confirm", "--data", '{"plan":"pro"}', "--json")
    assert created.returncode == 0, created.stderr
    user = json.loads(created.stdout)
    assert user["email"] == "ops@example.com" and user["email_confirmed_at"] and user["user_metadata"]["plan"] == "pro"
    assert run_cli("users", "create", *data, "--phone", "+15551230000").returncode == 0

    listed = json.loads(run_cli("users", "list", *data, "--json").stdout)
    assert [u["phone"] for u in listed["users"]] == ["15551230000", ""]
    table = run_cli("users", "list", *data, "--filter", "ops@").stdout
    assert "ops@example.com" in table and "15551230000" not in table and "1 of 1 user" in table

    shown = run_cli("users", "show", *data, "ops@example.com")
    assert user["id"] in shown.stdout and "pro" in shown.stdout
    updated = json.loads(run_cli("users", "update", *data, user["id"], "--email", "moved@example.com",
                                 "--data", '{"plan":null}', "--json").stdout)
    assert updated["email"] == "moved@example.com" and "plan" not in updated["user_metadata"]

    banned = json.loads(run_cli("users", "ban", *data, "moved@example.com", "--duration", "2h", "--json").stdout)
    assert banned["banned_until"]
    unbanned = json.loads(run_cli("users", "unban", *data, "moved@example.com", "--json").stdout)
    assert unbanned.get("banned_until") is None

    deleted = run_cli("users", "delete", *data, user["id"])
    assert deleted.returncode == 0 and user["id"] in deleted.stdout
    missing = run_cli("users", "show", *data, user["id"])
    assert missing.returncode != 0 and "user_not_found" in missing.stderr

    # Bad input is a clear error and a non-zero exit, never a crash.
    for args, expected in [
        (["users", "create", *data, "--email", "not-an-email"], "email_address_invalid"),
        (["users", "create", *data, "--email", "a@example.com", "--password", "short"], "weak_password"),
        (["users", "create", *data, "--email", "a@example.com", "--data", "[1]"], "JSON object"),
        (["users", "ban", *data, "nobody@example.com"], "user_not_found"),
        (["users", "list", *data, "--per-page", "0"], "per-page"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)


def test_users_commands_work_beside_a_running_server(latchkey_server):
    client = supabase_client(latchkey_server.url)
    email = f"beside-{uuid.uuid4().hex[:8]}@example.com"
    client.sign_up({"email": email, "password": "correct horse battery staple " + uuid.uuid4().hex[:6]})
    shown = run_cli("users", "show", "--data-dir", str(latchkey_server.data_dir), email, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["email"] == email

    # A lost phone (#39): the CLI removes every second factor and signs the user out everywhere.
    import httpx
    code = latchkey_server.latest_code(email)
    session = client.verify_otp({"email": email, "token": code, "type": "signup"}).session
    bearer = {"Authorization": f"Bearer {session.access_token}"}
    for kind in [{"factor_type": "totp"}, {"factor_type": "phone", "phone": "+4477009" + str(uuid.uuid4().int)[:5]}]:
        assert httpx.post(f"{latchkey_server.url}/factors", json=kind, headers=bearer, trust_env=False).status_code == 200
    reset = run_cli("users", "reset-mfa", "--data-dir", str(latchkey_server.data_dir), email, "--json")
    assert reset.returncode == 0, reset.stderr
    assert sorted(f["factor_type"] for f in json.loads(reset.stdout)) == ["phone", "totp"]
    assert httpx.get(f"{latchkey_server.url}/user", headers=bearer, trust_env=False).status_code in (401, 403)
    again = run_cli("users", "reset-mfa", "--data-dir", str(latchkey_server.data_dir), email)
    assert again.returncode != 0 and "mfa_factor_not_found" in again.stderr, again.stderr


def test_keys_list_shows_the_keys_the_server_publishes(latchkey_server):
    import httpx

    listed = run_cli("keys", "list", "--data-dir", str(latchkey_server.data_dir), "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    published = httpx.get(f"{latchkey_server.url}/.well-known/jwks.json", trust_env=False).json()["keys"]
    assert document["keys"] == published
    assert document["algorithm"] == "ES256" and document["signing_kid"] == published[0]["kid"]
    assert all("d" not in key for key in document["keys"])
    table = run_cli("keys", "list", "--data-dir", str(latchkey_server.data_dir)).stdout
    assert f"{published[0]['kid']}  EC ES256  signs and verifies" in table


def test_audit_shows_and_follows_the_log(latchkey_server):
    data = ["--data-dir", str(latchkey_server.data_dir)]
    client = supabase_client(latchkey_server.url)
    email = f"audit-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    client.sign_up({"email": email, "password": password})
    try:
        client.sign_in_with_password({"email": email, "password": "not the password at all"})
    except Exception:
        pass

    # What the server wrote is there for the CLI, filtered by user and by action.
    lines = run_cli("audit", *data, "--user", email, "--json", "--limit", "50")
    assert lines.returncode == 0, lines.stderr
    entries = [json.loads(line) for line in lines.stdout.splitlines()]
    assert [e["payload"]["action"] for e in entries] == ["user_signedup", "code_sent", "login_failed"]
    assert entries[0]["payload"]["actor_username"] == email and entries[0]["ip_address"] == "127.0.0.1"
    assert password not in lines.stdout
    failed = run_cli("audit", *data, "--action", "login_failed", "--user", email)
    assert "login_failed" in failed.stdout and "reason=invalid_credentials" in failed.stdout
    assert "user_signedup" not in failed.stdout

    # --follow prints what is written afterwards, here an operator's change from the CLI.
    follower = subprocess.Popen([str(binary_path()), "audit", *data, "--follow", "--json", "--action", "user_modified",
                                 "--interval", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        assert run_cli("users", "update", *data, email, "--role", "staff").returncode == 0
        line = follower.stdout.readline()
        event = json.loads(line)
        assert event["payload"]["action"] == "user_modified"
        assert event["payload"]["actor_username"].startswith("cli:")
        assert event["payload"]["traits"]["fields"] == ["role"]
    finally:
        follower.kill()
        follower.wait()

    for args, expected in [
        (["audit", *data, "--action", "teleported"], "Unknown audit action"),
        (["audit", *data, "--limit", "0"], "--limit"),
        (["audit", *data, "--user", "nobody@example.com"], "user_not_found"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)


def test_users_invite_and_link_with_the_server_stopped_then_running(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    invited = run_cli("users", "invite", *data, "New.Hire@example.com", "--data", '{"team":"core"}', "--json")
    assert invited.returncode == 0, invited.stderr
    user = json.loads(invited.stdout)
    assert user["email"] == "new.hire@example.com" and user["invited_at"] and not user.get("email_confirmed_at")
    again = run_cli("users", "invite", *data, "new.hire@example.com")
    assert again.returncode == 0  # not yet confirmed: a new invitation

    link = run_cli("users", "link", *data, "new.hire@example.com", "--type", "invite", "--json")
    assert link.returncode == 0, link.stderr
    made = json.loads(link.stdout)
    assert made["verification_type"] == "invite" and made["email"] == "new.hire@example.com"
    assert f"token={made['hashed_token']}&type=invite" in made["action_link"] and len(made["email_otp"]) == 6
    text = run_cli("users", "link", *data, "new.hire@example.com", "--type", "recovery").stdout
    assert "Link (recovery) for new.hire@example.com" in text and "/verify?token=" in text

    # The operator hands over the code; the user redeems it against the server, started later
    # on the same folder, which also delivers the invitation emails the CLI queued.
    import httpx

    from conftest import _free_port, _tail
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen([str(binary_path()), "serve", *data, "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        code = json.loads(run_cli("users", "link", *data, "new.hire@example.com", "--type", "magiclink", "--json").stdout)
        verified = httpx.post(f"{url}/verify", json={"type": "magiclink", "email": "new.hire@example.com",
                                                     "token": code["email_otp"]}, trust_env=False)
        assert verified.status_code == 200, verified.text
        assert verified.json()["user"]["email_confirmed_at"]
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            mail = json.loads(run_cli("mailbox", *data, "--to", "new.hire@example.com", "--json").stdout)["messages"]
            if len(mail) >= 2:
                break
            time.sleep(0.2)
        assert [m["subject"] for m in mail].count("You have been invited to Latchkey") == 2, _tail(tmp_path / "server.log")
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()

    for args, expected in [
        (["users", "invite", *data, "new.hire@example.com"], "email_exists"),
        (["users", "invite", *data, "not-an-email"], "email_address_invalid"),
        (["users", "link", *data, "nobody@example.com", "--type", "recovery"], "user_not_found"),
        (["users", "link", *data, "new.hire@example.com", "--type", "teleport"], "validation_failed"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)


@contextlib.contextmanager
def serving(tmp_path, env=None, port=None, inherit=True):
    """`_start_server` as a `with`: the server's URL, stopped when the block ends."""
    process, url, log = _start_server(tmp_path, env=env, port=port, inherit=inherit)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def _start_server(tmp_path, *, env=None, port=None, inherit=True):
    """A server of our own on `tmp_path` (on `port`, else a free one), returned with its URL once healthy.
    `inherit=False`: no Latchkey or GoTrue setting from this process's environment, as on a fresh machine."""
    import os

    import httpx

    from conftest import _free_port
    port = port or _free_port()
    log = open(tmp_path / "server.log", "a")
    server = subprocess.Popen([str(binary_path()), "serve", "--data-dir", str(tmp_path), "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, env={**_inherited(inherit), **(env or {})})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", trust_env=False).status_code == 200:
                return server, url, log
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise AssertionError("the server did not start")


def _inherited(inherit: bool) -> dict[str, str]:
    """This process's environment, or it without Latchkey's and GoTrue's settings."""
    import os

    if inherit:
        return dict(os.environ)
    return {k: v for k, v in os.environ.items() if not k.startswith(("LATCHKEY_", "GOTRUE_"))}


def test_keys_rotate_and_import_reach_a_running_server(tmp_path):
    import base64

    import httpx
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    data = ["--data-dir", str(tmp_path)]
    server, url, log = _start_server(tmp_path, env={"LATCHKEY_KEYS_RELOAD_INTERVAL": "1", "GOTRUE_MAILER_AUTOCONFIRM": "true"})

    def kid_of(token):
        header = token.split(".")[0]
        return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]

    def published():
        return [k["kid"] for k in httpx.get(f"{url}/.well-known/jwks.json", trust_env=False).json()["keys"]]

    def wait_for(check, what):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.2)
        raise AssertionError(what)

    try:
        first = json.loads(run_cli("keys", "list", *data, "--json").stdout)["signing_kid"]
        signup = httpx.post(f"{url}/signup", json={"email": "keys@example.com", "password": "correct horse battery staple"},
                            trust_env=False).json()
        old_token = signup["access_token"]
        assert kid_of(old_token) == first

        # Rotated with a delay: published within a second, still not signing.
        rotated = run_cli("keys", "rotate", *data, "--delay", "1h", "--json")
        assert rotated.returncode == 0, rotated.stderr
        second = json.loads(rotated.stdout)["kid"]
        wait_for(lambda: published() == [first, second], "the rotated key was not published")
        table = run_cli("keys", "list", *data).stdout
        assert f"{second}  EC ES256  published; signs from" in table and f"{first}  EC ES256  signs and verifies" in table

        # An imported key with no delay signs at once; tokens of the first key keep working.
        key = ec.generate_private_key(ec.SECP256R1())
        pem_path = tmp_path / "mine.pem"
        pem_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        imported = run_cli("keys", "import", *data, str(pem_path), "--delay", "0s", "--json")
        assert imported.returncode == 0, imported.stderr
        third = json.loads(imported.stdout)["kid"]

        def signs_with_third():
            token = httpx.post(f"{url}/token?grant_type=password",
                               json={"email": "keys@example.com", "password": "correct horse battery staple"},
                               trust_env=False).json()["access_token"]
            return kid_of(token) == third
        wait_for(signs_with_third, "the imported key did not take over")
        assert httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {old_token}"}, trust_env=False).status_code == 200

        audit = [json.loads(line) for line in run_cli("audit", *data, "--action", "key_rotated,key_imported", "--json").stdout.splitlines()]
        assert [e["payload"]["action"] for e in audit] == ["key_rotated", "key_imported"]
        assert all(e["payload"]["actor_username"].startswith("cli:") for e in audit)
        assert "PRIVATE" not in json.dumps(audit)
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()

    (tmp_path / "junk.pem").write_text("not a key")
    for args, expected in [
        (["keys", "import", *data, str(tmp_path / "junk.pem")], "not an EC P-256 private key"),
        (["keys", "import", *data, str(tmp_path / "missing.pem")], "Cannot read"),
        (["keys", "rotate", *data, "--delay", "soon"], "--delay"),
        (["keys", "rotate", *data, "--delay", "800h"], "30 days"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)


def test_providers_add_list_and_remove_with_the_server_stopped(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    added = run_cli("providers", "add", "custom:acme", *data, "--issuer", "https://sso.acme.example", "--client-id", "acme-web",
                    "--client-secret", "s3cret", "--also-accept", "acme-ios", "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["acceptable_client_ids"] == ["acme-ios"] and "s3cret" not in added.stdout
    listed = run_cli("providers", "list", *data)
    assert "custom:acme" in listed.stdout and "https://sso.acme.example" in listed.stdout and "s3cret" not in listed.stdout
    refused = run_cli("providers", "add", "custom:plain", *data, "--issuer", "http://sso.example.com", "--client-id", "x",
                      "--client-secret", "y")
    assert refused.returncode != 0 and "issuer must be an HTTPS URL" in refused.stderr
    assert run_cli("providers", "remove", "custom:acme", *data).returncode == 0
    assert "No custom providers." in run_cli("providers", "list", *data).stdout
    missing = run_cli("providers", "remove", "custom:acme", *data)
    assert missing.returncode != 0 and "not found" in missing.stderr


def test_a_command_builds_the_use_cases_alone(tmp_path):
    """Issue #38: a `latchkey` command builds the use cases over the store and nothing else. The
    environment's webhook endpoint is the server's to record as it starts (a command given
    LATCHKEY_WEBHOOK_URL leaves the endpoints as they are); no traces are exported and no metrics
    port is opened, whatever the environment asks."""
    import base64
    import os
    import socket

    from conftest import _free_port
    # A metrics port already taken, and an OTLP endpoint nobody answers: a command needs neither.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    env = {**os.environ, "LATCHKEY_WEBHOOK_URL": "https://hooks.example.com/latchkey",
           "LATCHKEY_WEBHOOK_SECRET": "v1,whsec_" + base64.b64encode(b"a webhook secret of 32 bytes!!!!").decode(), "LATCHKEY_METRICS_ENABLED": "true",
           "LATCHKEY_METRICS_PORT": str(taken.getsockname()[1]), "OTEL_TRACES_EXPORTER": "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{_free_port()}"}
    try:
        data = ["--data-dir", str(tmp_path)]
        created = subprocess.run([str(binary_path()), "users", "create", *data, "--email", "ops@example.com", "--json"],
                                 capture_output=True, text=True, timeout=60, env=env)
        assert created.returncode == 0, created.stderr
        listed = subprocess.run([str(binary_path()), "webhooks", "list", *data, "--json"],
                                capture_output=True, text=True, timeout=60, env=env)
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout)["webhooks"] == []
    finally:
        taken.close()
    # The server records it as it starts.
    with serving(tmp_path, env={"LATCHKEY_WEBHOOK_URL": env["LATCHKEY_WEBHOOK_URL"],
                                "LATCHKEY_WEBHOOK_SECRET": env["LATCHKEY_WEBHOOK_SECRET"]}):
        again = run_cli("webhooks", "list", *data, "--json")
        assert [w["source"] for w in json.loads(again.stdout)["webhooks"]] == ["env"]
