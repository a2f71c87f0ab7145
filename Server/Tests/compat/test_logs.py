"""JSON logs (`LATCHKEY_LOG_FORMAT=json`) at `trace`, with every request logged: each line is one
JSON object with the fields a log shipper needs, requests carry their id (the caller's
`X-Request-Id` when sane, echoed back), and no secret that went through the server in any flow —
password, code, link token, access or refresh token, TOTP secret, server or JWT secret — appears
in the output."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import struct
import time
import uuid

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from conftest import CODE_RE
from test_cli import _start_server
from test_supabase_admin import SECRET, service_headers


def totp(secret: str, at: float | None = None) -> str:
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = int((at or time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def test_json_logs_name_requests_and_leak_no_secret(tmp_path):
    env = {
        "GOTRUE_JWT_SECRET": SECRET, "LATCHKEY_LOG_FORMAT": "json", "LATCHKEY_LOG_LEVEL": "trace", "LATCHKEY_LOG_REQUESTS": "true",
        "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10", "GOTRUE_SMTP_MAX_FREQUENCY": "0", "GOTRUE_RATE_LIMIT_OTP": "1000",
    }
    process, url, log = _start_server(tmp_path, env=env)
    secrets: dict[str, str] = {"jwt secret": SECRET, "service token": service_headers()["Authorization"][7:]}
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)

        def mail(to: str) -> dict:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                messages = client.get("/_dev/mailbox", params={"to": to}, headers={"Accept": "application/json"}).json()["messages"]
                if messages:
                    return messages[0]
                time.sleep(0.1)
            raise AssertionError(f"no mail to {to}")

        email = f"logs-{uuid.uuid4().hex[:8]}@example.com"
        password = "log secret password " + uuid.uuid4().hex
        secrets["password"] = password
        signed_up = client.post("/signup", json={"email": email, "password": password}, headers={"X-Request-Id": "trace-me-1"})
        assert signed_up.status_code == 200 and signed_up.headers["x-request-id"] == "trace-me-1"
        message = mail(email)
        code = CODE_RE.search(message["text"]).group(1)
        link_token = re.search(r"token=([A-Za-z0-9_-]{20,})", message["text"]).group(1)
        secrets["signup code"], secrets["link token"] = code, link_token
        session = client.post("/verify", json={"type": "email", "email": email, "token": code}).json()
        secrets["access token"], secrets["refresh token"] = session["access_token"], session["refresh_token"]
        bearer = {"Authorization": f"Bearer {session['access_token']}"}

        refreshed = client.post("/token", params={"grant_type": "refresh_token"}, json={"refresh_token": session["refresh_token"]})
        secrets["rotated refresh token"] = refreshed.json()["refresh_token"]
        client.post("/token", params={"grant_type": "password"}, json={"email": email, "password": password})
        client.post("/token", params={"grant_type": "password"}, json={"email": email, "password": password + "wrong"})

        factor = client.post("/factors", json={"factor_type": "totp"}, headers=bearer).json()
        secrets["totp secret"] = factor["totp"]["secret"]
        challenge = client.post(f"/factors/{factor['id']}/challenge", headers=bearer).json()
        verified = client.post(f"/factors/{factor['id']}/verify", headers=bearer,
                               json={"challenge_id": challenge["id"], "code": totp(factor["totp"]["secret"])})
        assert verified.status_code == 200, verified.text
        secrets["aal2 refresh token"] = verified.json()["refresh_token"]

        client.post("/otp", json={"email": email})
        second = mail(email)
        secrets["otp code"] = CODE_RE.search(second["text"]).group(1)
        client.get("/verify", params={"token": re.search(r"token=([A-Za-z0-9_-]{20,})", second["text"]).group(1),
                                      "type": "magiclink"})
        client.post("/recover", json={"email": email})
        admin_password = "admin made password " + uuid.uuid4().hex
        secrets["admin password"] = admin_password
        client.post("/admin/users", json={"email": f"made-{uuid.uuid4().hex[:6]}@example.com", "password": admin_password},
                    headers=service_headers())
        weird = client.get("/user", headers={**bearer, "X-Request-Id": "bad id with spaces;"})
        assert weird.headers["x-request-id"] != "bad id with spaces;"
        client.get("/settings", headers={"X-Request-Id": "x" * 200})
        missing = client.get("/no-such-route", headers={"X-Request-Id": "err-1"})
        assert missing.status_code == 404 and missing.headers["x-request-id"] == "err-1"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
    # No folder secret: the server derived it from the JWT secret (HKDF-SHA256, docs/scaling.md),
    # which this computes independently.
    assert not (tmp_path / "server-secret").exists()
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"latchkey",
                   info=b"latchkey server secret from the JWT secret v1").derive(SECRET.encode())
    secrets["server secret"] = base64.urlsafe_b64encode(derived).decode().rstrip("=")
    secrets["server secret (base64)"] = base64.b64encode(derived).decode()

    output = (tmp_path / "server.log").read_text()
    lines = [line for line in output.splitlines() if line.startswith("{")]
    assert len(lines) > 20
    records = [json.loads(line) for line in lines]
    for record in records:
        assert {"time", "level", "message", "logger"} <= set(record), record
    requests = [r for r in records if r["message"] == "request"]
    assert requests and all({"request_id", "route", "status", "duration_ms", "method"} <= set(r) for r in requests)
    assert any(r["request_id"] == "trace-me-1" and r["route"] == "/signup" and r["status"] == 200 for r in requests)
    assert any(r.get("user_id") and r["route"] == "/factors" for r in requests)
    assert not any(r["request_id"] == "x" * 200 for r in requests)
    leaked = {name: value for name, value in secrets.items() if value and value in output}
    assert not leaked, f"secrets in the log: {sorted(leaked)}"
