"""GoTrue's captcha (issue #35): `GOTRUE_SECURITY_CAPTCHA_*` as a GoTrue deployment sets them,
tokens sent by the PyPI supabase-auth client (`options.captcha_token`), verified against a
stand-in of the provider's `siteverify` endpoint on loopback (its URL the one test-only setting),
with GoTrue's answers: a missing or refused token is `400 captcha_failed`, a provider that is down,
slow or not JSON is `500 unexpected_failure`. The hosted pages draw the widget and check its field.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthApiError

from conftest import _free_port, supabase_client
from hosted_app import PKCE, App
from test_cli import binary_path, serving
from test_supabase_admin import SECRET, service_headers

PASSWORD = "hunter22"  # eight characters: GoTrue's defaults hold under its configuration


class Provider:
    """The stand-in `siteverify`: `pass` succeeds, `fail` is refused with a code, `slow` answers
    after the server's timeout, `garbage` is not JSON; every request is recorded."""

    def __init__(self):
        self.port = _free_port()
        self.requests: list[dict[str, str]] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                form["content-type"] = self.headers.get("Content-Type", "")
                provider.requests.append(form)
                token = form.get("response", "")
                if token == "slow":
                    time.sleep(3)
                if token == "garbage":
                    body = b"<html>bad gateway</html>"
                else:
                    ok = token in ("pass", "slow") and form.get("secret") == "captcha-secret"
                    answer = {"success": ok, "hostname": "localhost"}
                    if not ok:
                        answer["error-codes"] = ["invalid-input-response", "<script>"]
                    body = json.dumps(answer).encode()
                # The verdict is read whatever the status, as GoTrue reads it.
                self.send_response(200 if token != "fail" else 400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/siteverify"


def captcha_env(provider_url: str, **extra: str) -> dict[str, str]:
    return {
        "GOTRUE_JWT_SECRET": SECRET,
        "GOTRUE_SITE_URL": "http://localhost:3000",
        "GOTRUE_MAILER_AUTOCONFIRM": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
        "GOTRUE_SMTP_MAX_FREQUENCY": "1ns",
        "GOTRUE_SECURITY_CAPTCHA_ENABLED": "true",
        "GOTRUE_SECURITY_CAPTCHA_PROVIDER": "turnstile",
        "GOTRUE_SECURITY_CAPTCHA_SECRET": " captcha-secret ",
        "GOTRUE_SECURITY_CAPTCHA_TIMEOUT": "1s",
        "LATCHKEY_CAPTCHA_VERIFY_URL": provider_url,
        **extra,
    }


@pytest.fixture(scope="module")
def provider():
    stand_in = Provider()
    yield stand_in
    stand_in.server.shutdown()


@pytest.fixture(scope="module")
def server(provider, tmp_path_factory):
    with serving(tmp_path_factory.mktemp("captcha"), env=captcha_env(provider.url, LATCHKEY_CAPTCHA_SITE_KEY='site"key<1>')) as url:
        yield url


def client(url: str) -> SyncGoTrueClient:
    return supabase_client(url, headers={"apikey": "anon"})


def refused(call) -> AuthApiError:
    with pytest.raises(AuthApiError) as raised:
        call()
    return raised.value


def test_the_client_library_passes_with_a_good_token_and_is_refused_without(server, provider):
    email = f"captcha-{uuid.uuid4().hex[:8]}@example.com"
    missing = refused(lambda: client(server).sign_up({"email": email, "password": PASSWORD}))
    assert (missing.status, missing.code) == (400, "captcha_failed")
    assert missing.message == "captcha protection: request disallowed (no captcha_token found)"
    bad = refused(lambda: client(server).sign_up({"email": email, "password": PASSWORD, "options": {"captcha_token": "fail"}}))
    # Only the provider's code-shaped codes are echoed.
    assert (bad.code, bad.message) == ("captcha_failed", "captcha protection: request disallowed (invalid-input-response)")

    before = len(provider.requests)
    signed_up = client(server).sign_up({"email": email, "password": PASSWORD, "options": {"captcha_token": "pass"}})
    assert signed_up.session is not None
    seen = provider.requests[before]
    assert seen == {"secret": "captcha-secret", "response": "pass", "remoteip": "127.0.0.1",
                    "content-type": "application/x-www-form-urlencoded"}

    # Every guarded endpoint, through the client library.
    password = refused(lambda: client(server).sign_in_with_password({"email": email, "password": PASSWORD}))
    assert password.code == "captcha_failed"
    session = client(server).sign_in_with_password({"email": email, "password": PASSWORD, "options": {"captcha_token": "pass"}})
    assert session.session is not None
    assert refused(lambda: client(server).sign_in_with_otp({"email": email})).code == "captcha_failed"
    client(server).sign_in_with_otp({"email": email, "options": {"captcha_token": "pass"}})
    assert refused(lambda: client(server).reset_password_for_email(email)).code == "captcha_failed"
    client(server).reset_password_for_email(email, {"captcha_token": "pass"})
    assert refused(lambda: client(server).resend({"type": "signup", "email": email})).code == "captcha_failed"
    assert refused(lambda: client(server).sign_in_anonymously()).code == "captcha_failed"
    anonymous = client(server).sign_in_anonymously({"options": {"captcha_token": "pass"}})
    assert anonymous.user.is_anonymous

    # A refresh needs none (GoTrue exempts refresh_token, pkce and id_token grants).
    refreshed = httpx.post(f"{server}/token", params={"grant_type": "refresh_token"},
                           json={"refresh_token": session.session.refresh_token}, trust_env=False)
    assert refreshed.status_code == 200, refreshed.text


def test_raw_requests_get_gotrues_answers(server):
    post = lambda path, body, **kw: httpx.post(f"{server}{path}", content=body, trust_env=False, **kw)  # noqa: E731
    # An unknown grant is a captcha question first, as on GoTrue.
    unknown = post("/token?grant_type=nonsense", b"{}")
    assert (unknown.status_code, unknown.json()["error_code"]) == (400, "captcha_failed")
    # Not JSON, a token of the wrong type, an explicit null and a blank one.
    assert post("/signup", b"not json").json()["error_code"] == "bad_json"
    assert post("/otp", b'{"gotrue_meta_security": "x"}').json()["error_code"] == "bad_json"
    for body in [b'{"email":"a@example.com","gotrue_meta_security":{"captcha_token":null}}',
                 b'{"email":"a@example.com","gotrue_meta_security":{"captcha_token":"   "}}']:
        answer = post("/otp", body)
        assert (answer.status_code, answer.json()["msg"]) == (400, "captcha protection: request disallowed (no captcha_token found)")
    # Under GoTrue's defaults a code has no cap, and the answer names none.
    sent = post("/otp", json.dumps({"email": "cap@example.com", "gotrue_meta_security": {"captcha_token": "pass"}}).encode())
    assert sent.status_code == 200 and "max_attempts" not in sent.json(), sent.text
    # A token past any provider's size is refused unasked.
    huge = post("/otp", json.dumps({"email": "a@example.com", "gotrue_meta_security": {"captcha_token": "x" * 20000}}).encode())
    assert huge.json()["error_code"] == "captcha_failed"
    # An operator's token passes without one; a user's or the anon key's does not.
    made = post("/signup", json.dumps({"email": f"op-{uuid.uuid4().hex[:6]}@example.com", "password": PASSWORD}).encode(),
                headers=service_headers())
    assert made.status_code == 200, made.text
    anon = post("/signup", json.dumps({"email": f"anon-{uuid.uuid4().hex[:6]}@example.com", "password": PASSWORD}).encode(),
                headers={"Authorization": "Bearer not-a-token"})
    assert anon.json()["error_code"] == "captcha_failed"


@pytest.mark.parametrize("token,why", [("slow", "times out"), ("garbage", "is not JSON")])
def test_a_provider_that_fails_is_gotrues_500(server, token, why):
    answer = httpx.post(f"{server}/otp", json={"email": "x@example.com", "gotrue_meta_security": {"captcha_token": token}},
                        headers={"X-Supabase-Api-Version": "2024-01-01"}, trust_env=False, timeout=20)
    assert answer.status_code == 500, (why, answer.text)
    assert answer.json() == {"code": "unexpected_failure", "message": "captcha verification process failed"}


def test_a_provider_that_is_down_is_gotrues_500_and_nothing_is_sent(tmp_path):
    down = f"http://127.0.0.1:{_free_port()}/siteverify"
    with serving(tmp_path, env=captcha_env(down)) as url:
        email = f"down-{uuid.uuid4().hex[:8]}@example.com"
        answer = httpx.post(f"{url}/otp", json={"email": email, "gotrue_meta_security": {"captcha_token": "pass"}},
                            trust_env=False, timeout=20)
        assert (answer.status_code, answer.json()["error_code"]) == (500, "unexpected_failure")
        messages = httpx.get(f"{url}/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"},
                             trust_env=False).json()
        assert not messages.get("messages")
    # No site key: the start-up log says the hosted forms cannot show the widget.
    assert "captcha-site-key" in (tmp_path / "server.log").read_text()


@pytest.mark.parametrize("env,message", [
    ({"GOTRUE_SECURITY_CAPTCHA_SECRET": "  "}, "captcha-secret (GOTRUE_SECURITY_CAPTCHA_SECRET) is empty"),
    ({"GOTRUE_SECURITY_CAPTCHA_PROVIDER": "recaptcha"}, "must be hcaptcha or turnstile"),
    ({"LATCHKEY_CAPTCHA_VERIFY_URL": "http://provider.example/siteverify"}, "captcha-verify-url must be an https:// URL"),
])
def test_a_captcha_that_cannot_work_refuses_to_start(tmp_path, env, message):
    run = subprocess.run([str(binary_path()), "serve", "--data-dir", str(tmp_path), "--port", str(_free_port())],
                         capture_output=True, text=True, timeout=60,
                         env={**captcha_env("http://127.0.0.1:1/siteverify"), **env, "PATH": "/usr/bin:/bin"})
    assert run.returncode != 0
    assert message in run.stderr + run.stdout


def test_the_hosted_pages_draw_the_widget_and_check_its_field(server, provider):
    app = App()
    try:
        flow = PKCE()
        pages = httpx.Client(trust_env=False, follow_redirects=False, timeout=20)
        page = pages.get(flow.page(server, app, "sign-in"))
        assert page.status_code == 200
        # The widget, with the site key escaped, in each guarded form, and the provider's script.
        assert page.text.count('<div class="cf-turnstile" data-sitekey="site&quot;key&lt;1&gt;"></div>') == 2
        assert re.search(r'<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" nonce="[^"]+" async defer>',
                         page.text)
        policy = page.headers["content-security-policy"]
        for directive in ["script-src", "frame-src", "connect-src", "style-src"]:
            assert re.search(directive + r" [^;]*https://challenges\.cloudflare\.com", policy), (directive, policy)
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        fields = {"csrf": csrf, "redirect_to": app.callback, "code_challenge": flow.challenge, "code_challenge_method": "s256",
                  "email": f"page-{uuid.uuid4().hex[:8]}@example.com"}
        without = pages.post(f"{server}/ui/code", data=fields)
        assert without.status_code == 400
        assert "Complete the check that you are not a robot" in without.text
        assert "Enter your code" not in without.text
        sent = pages.post(f"{server}/ui/code", data={**fields, "cf-turnstile-response": "pass"})
        assert sent.status_code == 200 and "<h1>Enter your code</h1>" in sent.text, sent.text
        # The code page's "send a new code" form carries the widget too.
        assert 'class="cf-turnstile"' in sent.text
        assert provider.requests[-1]["response"] == "pass"
        sign_up = pages.post(f"{server}/ui/sign-up", data={**fields, "email": f"new-{uuid.uuid4().hex[:6]}@example.com",
                                                           "password": PASSWORD, "cf-turnstile-response": "fail"})
        assert "Complete the check that you are not a robot" in sign_up.text
    finally:
        app.server.shutdown()
