"""Prometheus metrics over real HTTP: scraped from the main port with the token (and refused
without it), and from a port of their own; requests counted by route pattern, method and status
with their latency, and the outbox's depth sampled at the scrape."""

from __future__ import annotations

import re
import uuid

import httpx

from conftest import _free_port
from test_cli import _start_server

TOKEN = "a-metrics-token-" + uuid.uuid4().hex


def series(text: str, name: str, **labels) -> float:
    """The value of the sample `name{labels…}` (labels in any order), or 0."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and line.split(" ")[0] != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[line.find("{") + 1:line.rfind("}")]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_are_scraped_with_the_token_or_on_their_own_port(tmp_path):
    port = _free_port()
    env = {"GOTRUE_METRICS_ENABLED": "true", "LATCHKEY_METRICS_TOKEN": TOKEN, "LATCHKEY_METRICS_PORT": str(port),
           "GOTRUE_SMTP_MAX_FREQUENCY": "0", "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
           # Per-IP limits count without a trusted header under Latchkey's defaults only.
           "LATCHKEY_PROFILE": "strict"}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong-token-of-some-length"}).status_code == 401
        for _ in range(3):
            client.get("/settings")
        client.get("/admin/users/not-a-uuid")
        client.post("/otp", json={"email": f"metrics-{uuid.uuid4().hex[:6]}@example.com"})
        scraped = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
        text = scraped.text
        assert series(text, "latchkey_http_requests_total", route="/settings", method="GET", status="200") == 3
        assert series(text, "latchkey_http_requests_total", route="/admin/users/{id}", method="GET", status="401") == 1
        assert series(text, "latchkey_http_request_duration_seconds_count", route="/settings", method="GET", status="200") == 3
        assert "latchkey_http_request_duration_seconds_bucket" in text
        assert "# TYPE latchkey_outbox_pending_messages gauge" in text
        assert "/otp" in text and "metrics-" not in text  # routes, never addresses

        own = httpx.get(f"http://127.0.0.1:{port}/metrics", trust_env=False, timeout=20)
        assert own.status_code == 200 and "latchkey_http_requests_total" in own.text
        assert series(own.text, "latchkey_http_requests_total", route="/settings", method="GET", status="200") == 3
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_metrics_are_off_by_default_and_never_open(tmp_path):
    process, url, log = _start_server(tmp_path)
    try:
        assert httpx.get(f"{url}/metrics", trust_env=False).status_code == 404
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_what_sign_ins_and_refusals_count(tmp_path):
    """Each flow driven over HTTP shows in its series: sign-ups and sign-ins by method and outcome,
    codes sent by channel, a lock-out and the refusals after it, an anonymous sign-in refused by its
    limit, refresh-token reuse; and the store's transactions, the hashing queue and the sessions."""
    env = {"GOTRUE_METRICS_ENABLED": "true", "LATCHKEY_METRICS_TOKEN": TOKEN, "GOTRUE_MAILER_AUTOCONFIRM": "true",
           "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true", "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS": "1",
           "LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES": "2", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL": "0",
           "GOTRUE_SMTP_MAX_FREQUENCY": "0", "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
           # Per-IP limits count without a trusted header under Latchkey's defaults only.
           "LATCHKEY_PROFILE": "strict"}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        scrape = lambda: client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text  # noqa: E731
        email = f"counted-{uuid.uuid4().hex[:6]}@example.com"
        password = "a long enough password " + uuid.uuid4().hex
        assert client.post("/signup", json={"email": email, "password": password}).status_code == 200
        signed_in = client.post("/token?grant_type=password", json={"email": email, "password": password})
        assert signed_in.status_code == 200
        # Refresh-token reuse: the rotated token presented again.
        old = signed_in.json()["refresh_token"]
        assert client.post("/token?grant_type=refresh_token", json={"refresh_token": old}).status_code == 200
        assert client.post("/token?grant_type=refresh_token", json={"refresh_token": old}).status_code == 400
        assert client.post("/otp", json={"email": email}).status_code == 200
        # Two wrong passwords lock the account; the third attempt is refused by the limit.
        for _ in range(2):
            assert client.post("/token?grant_type=password", json={"email": email, "password": "wrong " + password}).status_code == 400
        assert client.post("/token?grant_type=password", json={"email": email, "password": password}).status_code == 429
        assert client.post("/signup", json={}).status_code == 200
        assert client.post("/signup", json={}).status_code == 429

        text = scrape()
        assert series(text, "latchkey_sign_ups_total", provider="email") == 1
        assert series(text, "latchkey_sign_ups_total", provider="anonymous") == 1
        assert series(text, "latchkey_sign_ins_total", method="password", outcome="success") == 2  # sign-up, then /token
        assert series(text, "latchkey_sign_ins_total", method="password", outcome="failure") == 2
        assert series(text, "latchkey_sign_ins_total", method="anonymous", outcome="success") == 1
        assert series(text, "latchkey_codes_sent_total", channel="email", kind="magiclink") == 1
        assert series(text, "latchkey_lockouts_total", kind="password") == 1
        assert series(text, "latchkey_rate_limit_refusals_total", limit="signin:fail") == 1
        assert series(text, "latchkey_rate_limit_refusals_total", limit="ip:anonymous") == 1
        assert series(text, "latchkey_refresh_token_reuse_total") == 1
        assert series(text, "latchkey_db_transaction_duration_seconds_count", outcome="committed") >= 8
        assert series(text, "latchkey_password_hash_queue_wait_seconds_count") >= 4
        # The signed-in sessions: the password one ended with its reused token; the sign-up's
        # and the anonymous user's remain.
        assert series(text, "latchkey_sessions_active") == 2
        assert email not in text and "127.0.0.1" not in text  # labels name methods and limits, never who
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
