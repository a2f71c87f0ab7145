"""GoTrue's auth hooks (`GOTRUE_HOOK_*`) called over real HTTP: a receiver in the test checks each
call's Standard Webhooks signature and answers as an operator's endpoint would. Every hook is
driven through the flow that calls it: a sign-up refused by `before-user-created`, codes sent by
`send-email` and `send-sms` and then used, claims added by `customize-access-token`, passwords and
TOTP codes rejected by the verification-attempt hooks (ending the user's sessions), a slow hook
and an unreachable one; every call is in the audit log. Unusable hook settings refuse to start."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import subprocess
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from conftest import _find_binary as binary_path
from conftest import _free_port
from test_cli import _start_server
from test_logs import totp
from test_supabase_admin import SECRET, service_headers

KEY = base64.b64encode(b"hook-secret-for-the-compat-tests!").decode()
HOOK_SECRET = f"v1,whsec_{KEY}"
PASSWORD = "a long enough password " + uuid.uuid4().hex


class Receiver:
    """An operator's hook endpoint: records each call (with whether its signature checks out) and
    answers with what `answers[path]` returns for the payload: (status, JSON body or None)."""

    def __init__(self):
        self.calls: list[tuple[str, dict, bool]] = []
        self.ids: list[str] = []  # each call's webhook-id, in order
        self.answers: dict[str, object] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                signed = f"{self.headers['webhook-id']}.{self.headers['webhook-timestamp']}.".encode() + body
                expected = "v1," + base64.b64encode(hmac.new(base64.b64decode(KEY), signed, hashlib.sha256).digest()).decode()
                verified = expected in self.headers.get("webhook-signature", "").split(" ")
                fresh = abs(int(self.headers["webhook-timestamp"]) - time.time()) < 60
                payload = json.loads(body)
                receiver.ids.append(self.headers["webhook-id"])
                receiver.calls.append((self.path, payload, verified and fresh))
                answer = receiver.answers.get(self.path, lambda p: (200, {}))
                status, reply, *kind = answer(payload)  # (status, JSON or None) or (status, bytes, content type)
                data = reply if isinstance(reply, bytes) else b"" if reply is None else json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    if reply is not None:
                        self.send_header("Content-Type", kind[0] if kind else "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server stopped waiting (a hook that is too slow)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def payloads(self, path: str) -> list[dict]:
        return [payload for called, payload, _ in self.calls if called == path]

    def close(self):
        self.server.shutdown()


def hook_env(receiver: Receiver, **hooks: str) -> dict:
    env = {}
    for name, path in hooks.items():
        env[f"GOTRUE_HOOK_{name}_ENABLED"] = "true"
        env[f"GOTRUE_HOOK_{name}_URI"] = receiver.url(path)
        env[f"GOTRUE_HOOK_{name}_SECRETS"] = HOOK_SECRET
    return env


def claims(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.close()


def test_every_hook_is_called_as_gotrue_calls_it(tmp_path, receiver):
    rejected_users: set[str] = set()
    mode = {"claims": "add"}

    def before(payload):
        if payload["user"].get("email", "").endswith("@blocked.example"):
            return 403, {"error": {"http_code": 403, "message": "Only invited companies may sign up"}}
        return 200, {}

    def custom_claims(payload):
        changed = dict(payload["claims"], tier="gold")
        if mode["claims"] == "impersonate":
            changed["sub"] = str(uuid.uuid4())
        return 200, {"claims": changed}

    def password(payload):
        if payload["user_id"] in rejected_users:
            return 200, {"decision": "reject", "message": "Your account is under review", "should_logout_user": True}
        return 200, {"decision": "continue"}

    receiver.answers = {
        "/before": before, "/claims": custom_claims, "/password": password,
        "/mfa": lambda p: (200, {"decision": "reject"} if not p["valid"] else {"decision": "continue"}),
        "/email": lambda p: (200, {}), "/sms": lambda p: (204, None),
    }
    env = {"GOTRUE_JWT_SECRET": SECRET, "GOTRUE_SMTP_MAX_FREQUENCY": "0", "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
           "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "0",
           "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true", "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
           **hook_env(receiver, BEFORE_USER_CREATED="/before", CUSTOM_ACCESS_TOKEN="/claims",
                      PASSWORD_VERIFICATION_ATTEMPT="/password", MFA_VERIFICATION_ATTEMPT="/mfa", SEND_EMAIL="/email",
                      SEND_SMS="/sms")}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)

        # before-user-created refuses with its own status and message (sent here with that status,
        # which GoTrue would read as a broken hook; its 200 form is read too); nothing is stored or sent.
        refused = client.post("/signup", json={"email": "eve@blocked.example", "password": PASSWORD})
        assert refused.status_code == 403, refused.text
        assert refused.json()["error_code"] == "hook_rejected" and refused.json()["msg"] == "Only invited companies may sign up"
        assert receiver.payloads("/before")[-1]["metadata"]["name"] == "before-user-created"
        assert receiver.payloads("/email") == []

        # send-email gets the confirmation code instead of an SMTP server; the code confirms.
        email = f"ada-{uuid.uuid4().hex[:6]}@example.com"
        assert client.post("/signup", json={"email": email, "password": PASSWORD}).status_code == 200
        deadline = time.monotonic() + 15
        while not receiver.payloads("/email") and time.monotonic() < deadline:
            time.sleep(0.1)
        mail = receiver.payloads("/email")[-1]
        assert mail["user"]["email"] == email and mail["metadata"]["name"] == "send-email"
        data = mail["email_data"]
        assert data["email_action_type"] == "signup" and data["token"].isdigit() and data["token_hash"]
        assert data["site_url"] == url or data["site_url"].startswith("http")
        confirmed = client.post("/verify", json={"type": "signup", "email": email, "token": data["token"]})
        assert confirmed.status_code == 200, confirmed.text
        session = confirmed.json()
        user_id = session["user"]["id"]

        # customize-access-token: the added claim is signed; the rest is as it was.
        token = claims(session["access_token"])
        assert token["tier"] == "gold" and token["sub"] == user_id and token["session_id"]
        assert receiver.payloads("/claims")[-1]["authentication_method"] in ("otp", "email")

        # password-verification sees each check; a rejection refuses and ends the user's sessions.
        signed_in = client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD})
        assert signed_in.status_code == 200 and claims(signed_in.json()["access_token"])["tier"] == "gold"
        assert receiver.payloads("/password")[-1] == {**receiver.payloads("/password")[-1], "user_id": user_id, "valid": True}
        rejected_users.add(user_id)
        refused = client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD})
        assert refused.status_code == 400 and refused.json()["error_code"] == "invalid_credentials"
        assert refused.json()["msg"] == "Your account is under review"
        ended = client.post("/token?grant_type=refresh_token", json={"refresh_token": signed_in.json()["refresh_token"]})
        assert ended.status_code == 400, ended.text
        rejected_users.clear()

        # mfa-verification: a wrong code is rejected by the hook, which ends the user's sessions.
        signed_in = client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD}).json()
        bearer = {"Authorization": f"Bearer {signed_in['access_token']}"}
        factor = client.post("/factors", json={"factor_type": "totp"}, headers=bearer).json()
        challenge = client.post(f"/factors/{factor['id']}/challenge", headers=bearer).json()
        wrong = str((int(totp(factor["totp"]["secret"])) + 1) % 1_000_000).zfill(6)
        rejected = client.post(f"/factors/{factor['id']}/verify", headers=bearer, json={"challenge_id": challenge["id"], "code": wrong})
        assert rejected.status_code == 403 and rejected.json()["error_code"] == "mfa_verification_rejected", rejected.text
        assert receiver.payloads("/mfa")[-1]["valid"] is False and receiver.payloads("/mfa")[-1]["factor_id"] == factor["id"]
        assert client.post("/token?grant_type=refresh_token", json={"refresh_token": signed_in["refresh_token"]}).status_code == 400
        # The right code goes through the hook and raises a new session to aal2.
        signed_in = client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD}).json()
        bearer = {"Authorization": f"Bearer {signed_in['access_token']}"}
        challenge = client.post(f"/factors/{factor['id']}/challenge", headers=bearer).json()
        verified = client.post(f"/factors/{factor['id']}/verify", headers=bearer,
                               json={"challenge_id": challenge["id"], "code": totp(factor["totp"]["secret"])})
        assert verified.status_code == 200, verified.text
        assert claims(verified.json()["access_token"])["aal"] == "aal2" and receiver.payloads("/mfa")[-1]["valid"] is True

        # send-sms gets the code instead of Twilio; the code signs in.
        phone = "1555" + str(uuid.uuid4().int)[:7]
        sent = client.post("/otp", json={"phone": phone})
        assert sent.status_code == 200, sent.text
        sms = receiver.payloads("/sms")[-1]
        assert sms["sms"]["phone"] == phone and sms["sms"]["otp"].isdigit() and sms["metadata"]["name"] == "send-sms"
        by_phone = client.post("/verify", json={"type": "sms", "phone": phone, "token": sms["sms"]["otp"]})
        assert by_phone.status_code == 200 and claims(by_phone.json()["access_token"])["tier"] == "gold"

        # A phone factor's code goes through send-sms too, as GoTrue's `mfa` type (#39), and its
        # verification through mfa-verification.
        bearer = {"Authorization": f"Bearer {by_phone.json()['access_token']}"}
        factor = client.post("/factors", json={"factor_type": "phone", "phone": "+" + phone}, headers=bearer).json()
        challenge = client.post(f"/factors/{factor['id']}/challenge", json={"channel": "sms"}, headers=bearer)
        assert challenge.status_code == 200, challenge.text
        sms = receiver.payloads("/sms")[-1]
        assert sms["sms"]["sms_type"] == "mfa" and sms["sms"]["phone"] == phone and sms["sms"]["otp"].isdigit()
        verified = client.post(f"/factors/{factor['id']}/verify", headers=bearer,
                               json={"challenge_id": challenge.json()["id"], "code": sms["sms"]["otp"]})
        assert verified.status_code == 200 and claims(verified.json()["access_token"])["aal"] == "aal2", verified.text
        assert receiver.payloads("/mfa")[-1]["factor_type"] == "phone" and receiver.payloads("/mfa")[-1]["valid"] is True

        # A hook that changes who the token is for fails the sign-in with GoTrue's 500 (the session
        # it would have answered is discarded: HooksTests).
        mode["claims"] = "impersonate"
        broken = client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD})
        assert broken.status_code == 500 and "sub may not be changed" in broken.json()["msg"]

        # Every call was signed, and is in the audit log with its outcome.
        assert receiver.calls and all(ok for _, _, ok in receiver.calls)
        audit = client.get("/admin/audit", params={"per_page": 1000}, headers=service_headers()).json()
        hooks = {(e["payload"]["traits"]["hook"], e["payload"]["traits"]["outcome"]) for e in audit
                 if e["payload"]["action"] == "hook_called"}
        assert {("before-user-created", "rejected"), ("before-user-created", "ok"), ("send-email", "ok"),
                ("customize-access-token", "ok"), ("password-verification", "ok"), ("mfa-verification", "ok"),
                ("send-sms", "ok")} <= hooks, hooks
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_a_slow_hook_times_out_and_an_unreachable_one_is_retried(tmp_path, receiver):
    def slow(payload):
        time.sleep(3)
        return 200, {}

    receiver.answers = {"/slow": slow}
    closed = _free_port()
    env = {"GOTRUE_JWT_SECRET": SECRET, "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10", "LATCHKEY_HOOK_TIMEOUT": "1",
           "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
           **hook_env(receiver, BEFORE_USER_CREATED="/slow")}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        email = f"slow-{uuid.uuid4().hex[:6]}@example.com"
        started = time.monotonic()
        answer = client.post("/signup", json={"email": email, "password": PASSWORD})
        assert answer.status_code == 422 and answer.json()["error_code"] == "hook_timeout", answer.text
        assert time.monotonic() - started < 2.9
        users = client.get("/admin/users", headers=service_headers()).json()["users"]
        assert all(u["email"] != email for u in users)  # nothing stored
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()

    env = {"GOTRUE_JWT_SECRET": SECRET, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
           "GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED": "true",
           "GOTRUE_HOOK_BEFORE_USER_CREATED_URI": f"http://127.0.0.1:{closed}/gone",
           "GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS": HOOK_SECRET}
    (tmp_path / "unreachable").mkdir()
    process, url, log = _start_server(tmp_path / "unreachable", env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        started = time.monotonic()
        answer = client.post("/signup", json={})
        assert answer.status_code == 422 and answer.json()["error_code"] == "hook_timeout_after_retry", answer.text
        assert 3.5 < time.monotonic() - started < 6  # three tries, two pauses of 2 s, within GoTrue's 5 s
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_a_broken_answer_fails_the_request_with_gotrues_error_and_stores_nothing(tmp_path, receiver):
    mode = {"answer": None}
    receiver.answers = {"/before": lambda p: mode["answer"]}
    env = {"GOTRUE_JWT_SECRET": SECRET, "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10", **hook_env(receiver, BEFORE_USER_CREATED="/before")}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        for answer, status, code, message in [
            ((200, b"allowed", "text/plain"), 400, "hook_payload_invalid_content_type", "text/plain"),
            ((200, b"{" + b" " * 300_000 + b"}", "application/json"), 422, "hook_payload_over_size_limit", "size limit"),
            ((200, b"{{", "application/json"), 500, "unexpected_failure", "Error unmarshaling JSON output."),
            ((401, {}), 500, "unexpected_failure", "Hook requires authorization token"),
            ((418, {}), 500, "unexpected_failure", "Unexpected status code returned from hook: 418"),
        ]:
            mode["answer"] = answer
            email = f"broken-{uuid.uuid4().hex[:6]}@example.com"
            refused = client.post("/signup", json={"email": email, "password": PASSWORD})
            assert refused.status_code == status and refused.json()["error_code"] == code, refused.text
            assert message in refused.json()["msg"]
            users = client.get("/admin/users", headers=service_headers()).json()["users"]
            assert all(u["email"] != email for u in users)
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.mark.parametrize("uri, secrets, says", [
    ("pg-functions://postgres/public/hook", HOOK_SECRET, "pg-functions"),
    ("http://hooks.example.com/hook", HOOK_SECRET, "https"),
    ("https://hooks.example.com/hook", "v1a,whpk_" + "A" * 44 + ":whsk_" + "A" * 44, "v1a"),
    ("https://hooks.example.com/hook", "", "at least one secret"),
    ("", HOOK_SECRET, "URI is empty"),
])
def test_unusable_hook_settings_refuse_to_start(tmp_path, uri, secrets, says):
    import os
    env = {**os.environ, "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true", "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": uri,
           "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS": secrets}
    result = subprocess.run([str(binary_path()), "serve", "--data-dir", str(tmp_path), "--port", str(_free_port())],
                            capture_output=True, text=True, timeout=30, env=env)
    assert result.returncode != 0
    assert "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN" in result.stderr + result.stdout and says in result.stderr + result.stdout
