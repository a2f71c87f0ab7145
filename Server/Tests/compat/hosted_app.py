"""What the hosted-page tests share: the app at the redirect URL, a server reached as
`localhost` (passkeys need a domain), PKCE, and codes from the dev mailbox."""

from __future__ import annotations

import base64
import hashlib
import http.server
import secrets
import threading
import time
import urllib.parse

import httpx
import pytest

from conftest import CODE_RE, _free_port
from test_cli import _start_server
from test_supabase_admin import SECRET, service_headers


class App:
    """The app's side: a local page at the redirect URL that records what came back. `host` is
    the name its callback is reached by (`localhost`, the pages' own site; `127.0.0.1`, another
    site), and `link`, when set, is offered by its `/start` page ("Sign in with…")."""

    def __init__(self, host: str = "localhost"):
        self.port = _free_port()
        self.host = host
        self.link = ""
        self.hits: list[str] = []
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                app.hits.append(self.path)
                body = (f'<!doctype html><title>App</title><a id="go" href="{app.link}">Sign in with Latchkey</a>'
                        if self.path == "/start" else "<!doctype html><title>App</title><p>Back in the app.</p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def callback(self) -> str:
        return f"http://{self.host}:{self.port}/callback"

    def code(self, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for hit in reversed(self.hits):
                query = urllib.parse.parse_qs(urllib.parse.urlparse(hit).query)
                if "code" in query:
                    self.hits.clear()
                    return query["code"][0]
            time.sleep(0.05)
        raise AssertionError(f"the app got no code: {self.hits}")


@pytest.fixture(scope="module")
def app():
    app = App()
    yield app
    app.server.shutdown()


@pytest.fixture(scope="module")
def server(app, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pages")
    port = _free_port()
    url = f"http://localhost:{port}"
    env = {
        "GOTRUE_JWT_SECRET": SECRET,
        "API_EXTERNAL_URL": url,
        "GOTRUE_SITE_URL": f"http://localhost:{app.port}",
        "GOTRUE_URI_ALLOW_LIST": f"http://localhost:{app.port}/**",
        "GOTRUE_PASSKEY_ENABLED": "true",
        "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
        "LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES": "3",
        "GOTRUE_RATE_LIMIT_OTP": "1000",
        "GOTRUE_SMTP_MAX_FREQUENCY": "0",
        "LATCHKEY_ADMIN_CONSOLE": "true",
        # Second factors of every kind (#39): phone codes land in the dev mailbox.
        "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
        "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "1s",
        "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY": "1000",
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
        # The OAuth server with Latchkey's own consent page (#40).
        "GOTRUE_OAUTH_SERVER_ENABLED": "true",
        "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
        # Latchkey's own pages, with Latchkey's defaults (attempt caps, 15-character passwords).
        "LATCHKEY_PROFILE": "strict",
    }
    process, _, log = _start_server(tmp, env=env, port=port)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


class PKCE:
    def __init__(self):
        self.verifier = secrets.token_urlsafe(48)
        self.challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()

    def page(self, server: str, app: App, page: str = "sign-in") -> str:
        query = urllib.parse.urlencode({"redirect_to": app.callback, "code_challenge": self.challenge,
                                        "code_challenge_method": "s256"})
        return f"{server}/ui/{page}?{query}"

    def exchange(self, server: str, code: str) -> httpx.Response:
        return httpx.post(f"{server}/token", params={"grant_type": "pkce"},
                          json={"auth_code": code, "code_verifier": self.verifier}, trust_env=False)


def latest_code(server: str, email: str, exclude: set[str] = frozenset()) -> tuple[str, set[str]]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        messages = httpx.get(f"{server}/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"},
                             trust_env=False).json().get("messages") or []
        fresh = [m for m in messages if m["id"] not in exclude]
        if fresh:
            return CODE_RE.search(fresh[0]["text"]).group(1), {m["id"] for m in messages}
        time.sleep(0.1)
    raise AssertionError(f"no code for {email}")


def create_user(server: str, email: str, password: str) -> str:
    made = httpx.post(f"{server}/admin/users", json={"email": email, "password": password, "email_confirm": True},
                      headers=service_headers(), trust_env=False)
    assert made.status_code == 200, made.text
    return made.json()["id"]
