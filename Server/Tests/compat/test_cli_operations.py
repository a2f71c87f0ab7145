"""Operating a default install from the CLI: service-role tokens, retiring a leaked key, finding
users by phone, the default ban, and following a burst of audit events."""

import json
import subprocess
import time
import uuid

import httpx
from supabase_auth._sync.gotrue_admin_api import SyncGoTrueAdminAPI

from conftest import _find_binary as binary_path
from test_cli import _start_server, run_cli


def _wait_for(check, what, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(what)


def _admin(url, token):
    return SyncGoTrueAdminAPI(url=url, headers={"Authorization": f"Bearer {token}", "apikey": token})


def test_a_service_token_drives_the_admin_api_until_its_key_is_retired(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    # Minted with the server stopped, on a default install (stored ES256 keys, no JWT secret).
    minted = run_cli("keys", "service-token", *data, "--json")
    assert minted.returncode == 0, minted.stderr
    first = json.loads(minted.stdout)
    assert first["role"] == "service_role" and first["expires_at"]
    server, url, log = _start_server(tmp_path, env={"LATCHKEY_KEYS_RELOAD_INTERVAL": "1"})
    try:
        admin = _admin(url, first["token"])
        email = f"ops-{uuid.uuid4().hex[:8]}@example.com"
        created = admin.create_user({"email": email, "password": "correct horse battery staple", "email_confirm": True})
        assert email in [u.email for u in admin.list_users()]

        # A leaked key: it signs now, so it cannot be retired before a rotation.
        leaked = json.loads(run_cli("keys", "list", *data, "--json").stdout)["signing_kid"]
        refused = run_cli("keys", "retire", *data, leaked)
        assert refused.returncode != 0 and "rotate first" in refused.stderr
        assert run_cli("keys", "rotate", *data, "--delay", "0s").returncode == 0
        retired = run_cli("keys", "retire", *data, leaked, "--json")
        assert retired.returncode == 0, retired.stderr
        assert json.loads(retired.stdout) == {"retired": leaked}

        # Within the reload interval the running server refuses everything the key signed.
        def refuses_old_token():
            answer = httpx.get(f"{url}/admin/users", headers={"Authorization": f"Bearer {first['token']}"}, trust_env=False)
            return answer.status_code == 403 and answer.json().get("error_code") == "bad_jwt"
        _wait_for(refuses_old_token, "the retired key's token still worked")
        published = [k["kid"] for k in httpx.get(f"{url}/.well-known/jwks.json", trust_env=False).json()["keys"]]
        assert leaked not in published

        # A new token, plain text this time, from the key that signs now.
        second = run_cli("keys", "service-token", *data, "--expires-in", "1h").stdout.strip()
        assert second.count(".") == 2
        assert _admin(url, second).get_user_by_id(created.user.id).user.email == email
        admin.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()

    audit = [json.loads(line) for line in
             run_cli("audit", *data, "--action", "service_token_issued,key_retired", "--json").stdout.splitlines()]
    assert [e["payload"]["action"] for e in audit] == ["service_token_issued", "key_retired", "service_token_issued"]
    assert first["token"] not in json.dumps(audit) and second not in json.dumps(audit)

    for args, expected in [
        (["keys", "service-token", *data, "--role", "authenticated"], "admin roles"),
        (["keys", "service-token", *data, "--expires-in", "soon"], "--expires-in"),
        (["keys", "service-token", *data, "--expires-in", "1s"], "at least a minute"),
        (["keys", "retire", *data, "no-such-kid"], "not_found"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)


def test_users_by_phone_kept_ids_the_default_ban_and_their_events(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    kept = str(uuid.uuid4())
    created = run_cli("users", "create", *data, "--email", "both@example.com", "--phone", "+1 555 010 9999", "--id", kept,
                      "--confirm", "--json")
    assert created.returncode == 0, created.stderr
    user = json.loads(created.stdout)
    assert user["id"] == kept and {i["provider"] for i in user["identities"]} == {"email", "phone"}

    # Found by id, exact email or phone, however the number is written.
    for key in [kept, "Both@Example.com", "+15550109999", "15550109999"]:
        shown = run_cli("users", "show", *data, key, "--json")
        assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == kept, (key, shown.stderr)
    # An address that merely contains another is not a match.
    assert "user_not_found" in run_cli("users", "show", *data, "oth@example.com").stderr

    # The default ban is GoTrue's "100 years".
    banned = json.loads(run_cli("users", "ban", *data, "+15550109999", "--json").stdout)
    assert banned["banned_until"] > "2100"
    assert run_cli("users", "update", *data, kept, "--password-hash",
                   "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW").returncode == 0
    deleted = run_cli("users", "delete", *data, "both@example.com", "--json")
    assert json.loads(deleted.stdout) == {"deleted": kept}

    # Every operator action is in the log, also after the user is gone (by id).
    events = [json.loads(line) for line in run_cli("audit", *data, "--user", kept, "--json").stdout.splitlines()]
    assert [e["payload"]["action"] for e in events] == ["user_created", "user_modified", "user_modified", "user_deleted"]
    assert events[1]["payload"]["traits"]["fields"] == ["ban_duration"]
    assert events[2]["payload"]["traits"]["fields"] == ["password_hash"]
    assert all(e["payload"]["actor_username"].startswith("cli:") for e in events)
    assert "$2a$" not in json.dumps(events)

    other = json.loads(run_cli("users", "create", *data, "--email", "other@example.com", "--json").stdout)
    for args, expected in [
        (["users", "create", *data, "--email", "x@example.com", "--id", "nope"], "id must be a UUID"),
        (["users", "create", *data, "--email", "y@example.com", "--id", other["id"]], "already been registered"),
        (["users", "update", *data, "other@example.com", "--email", "not-an-email"], "email_address_invalid"),
        (["users", "update", *data, "other@example.com", "--password-hash", "md5:abc"], "bcrypt"),
        (["users", "update", *data, "other@example.com", "--data", "[1]"], "JSON object"),
        (["users", "ban", *data, "other@example.com", "--duration", "2562048h"], "ban_duration"),
        (["users", "delete", *data, "nobody@example.com"], "user_not_found"),
        (["users", "show", *data, "+0123"], "user_not_found"),
    ]:
        result = run_cli(*args)
        assert result.returncode != 0 and expected in result.stderr, (args, result.stderr)
    # None of that changed the user.
    assert json.loads(run_cli("users", "show", *data, "other@example.com", "--json").stdout)["user_metadata"] == {}


def test_keys_are_listed_rotated_imported_and_retired_with_the_server_stopped(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    data = ["--data-dir", str(tmp_path)]
    first = json.loads(run_cli("keys", "list", *data, "--json").stdout)
    assert first["algorithm"] == "ES256" and [k["kid"] for k in first["keys"]] == [first["signing_kid"]]
    rotated = json.loads(run_cli("keys", "rotate", *data, "--delay", "1h", "--json").stdout)["kid"]
    pem = tmp_path / "mine.pem"
    pem.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    imported = json.loads(run_cli("keys", "import", *data, str(pem), "--delay", "0s", "--json").stdout)["kid"]
    listed = json.loads(run_cli("keys", "list", *data, "--json").stdout)
    assert listed["signing_kid"] == imported
    assert {k["kid"] for k in listed["keys"]} == {first["signing_kid"], rotated, imported}
    # The scheduled key has not signed yet; retiring it cancels the rotation.
    assert run_cli("keys", "retire", *data, rotated).returncode == 0
    assert run_cli("keys", "retire", *data, first["signing_kid"]).returncode == 0
    assert [k["kid"] for k in json.loads(run_cli("keys", "list", *data, "--json").stdout)["keys"]] == [imported]
    table = run_cli("keys", "list", *data).stdout
    assert f"{imported}  EC ES256  signs and verifies" in table
    events = [json.loads(line)["payload"]["action"] for line in
              run_cli("audit", *data, "--action", "key_rotated,key_imported,key_retired", "--json").stdout.splitlines()]
    assert events == ["key_rotated", "key_imported", "key_retired", "key_retired"]


def test_audit_follow_prints_every_event_of_a_burst(latchkey_server):
    data = ["--data-dir", str(latchkey_server.data_dir)]
    follower = subprocess.Popen([str(binary_path()), "audit", *data, "--follow", "--json", "--action", "user_signedup",
                                 "--limit", "1", "--interval", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        # More events in one interval than --limit: each still printed once.
        emails = [f"burst-{i}-{uuid.uuid4().hex[:6]}@example.com" for i in range(12)]
        for email in emails:
            answer = httpx.post(f"{latchkey_server.url}/signup", json={"email": email, "password": "correct horse battery staple"},
                                trust_env=False)
            assert answer.status_code == 200, answer.text
        seen = []
        deadline = time.monotonic() + 20
        while len([e for e in seen if e in emails]) < len(emails) and time.monotonic() < deadline:
            line = follower.stdout.readline()
            if not line:
                break
            seen.append(json.loads(line)["payload"]["actor_username"])
        printed = [e for e in seen if e in emails]
        assert sorted(printed) == sorted(emails) and len(printed) == len(set(printed))
    finally:
        follower.kill()
        follower.wait()


def test_users_seed_makes_many_confirmed_users_all_or_nothing(tmp_path):
    data = ["--data-dir", str(tmp_path)]
    seeded = run_cli("users", "seed", "12000", *data, "--prefix", "load")
    assert seeded.returncode == 0, seeded.stderr
    assert "12000 users" in seeded.stdout
    listed = run_cli("users", "list", *data, "--json", "--filter", "load-11999@", "--per-page", "5")
    assert listed.returncode == 0, listed.stderr
    users = json.loads(listed.stdout)["users"]
    assert [u["email"] for u in users] == ["load-11999@example.com"]
    assert users[0]["email_confirmed_at"]
    # An overlapping range is refused as a whole: nothing of its batch is stored.
    again = run_cli("users", "seed", "3", *data, "--prefix", "load", "--start", "11998")
    assert again.returncode != 0 and "email_exists" in again.stderr
    assert json.loads(run_cli("users", "list", *data, "--json", "--filter", "load-12000@").stdout)["users"] == []
    for bad in (["0"], ["-5"], ["10", "--domain", "not a domain"]):
        refused = run_cli("users", "seed", *bad, *data)
        assert refused.returncode != 0
