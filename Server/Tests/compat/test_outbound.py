"""Where Latchkey's own requests go (#34, item 5): a provider's discovery document, a hook and a
webhook that answer with a redirect to another address are not followed, so an issuer (or an
operator's custom provider, or whoever answers for a hook's host) cannot point Latchkey at an
internal listener such as a cloud's metadata service. A loopback "metadata" listener counts what
reaches it: nothing may.

Hooks and webhooks on a private address are refused before any connection is made; that part
(and DNS answers that point inside) is pinned by `OutboundPolicyTests` in the Swift suite: these
tests only ever send traffic to 127.0.0.1."""

from __future__ import annotations

import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from test_cli import serving
from test_hooks import HOOK_SECRET
from test_supabase_admin import SECRET, service_headers

PASSWORD = "a long enough password " + uuid.uuid4().hex


class Listener:
    """A loopback HTTP server: answers each request with `answer(path)` -> (status, headers, body)
    and records the paths it was asked for."""

    def __init__(self, answer):
        self.paths: list[str] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                listener.paths.append(self.path)
                status, headers, body = answer(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _any  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self):
        self.server.shutdown()


@pytest.fixture
def metadata():
    """The internal service an attacker wants reached: it answers like a metadata endpoint."""
    listener = Listener(lambda path: (200, {"Content-Type": "application/json"}, b'{"token": "instance-credentials"}'))
    yield listener
    listener.close()


@pytest.fixture
def redirector(metadata):
    """An issuer, hook and webhook endpoint that answers every request with a 302 to the metadata
    listener."""
    listener = Listener(lambda path: (302, {"Location": metadata.url("/latest/meta-data/iam")}, b""))
    yield listener
    listener.close()


def test_a_providers_redirect_is_not_followed(tmp_path, metadata, redirector):
    """An issuer whose discovery document answers 302 to an internal address: `/authorize` for
    that provider fails, and the internal listener is never asked."""
    with serving(tmp_path, env={
        "GOTRUE_SITE_URL": "http://localhost:3000",
        "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true",
        "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": "kc-app",
        "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": "kc-secret",
        "GOTRUE_EXTERNAL_KEYCLOAK_URL": redirector.url("/realms/acme"),
    }) as url:
        answer = httpx.get(f"{url}/authorize", params={"provider": "keycloak"}, trust_env=False, follow_redirects=False)
        assert answer.status_code >= 400 and answer.status_code < 600, answer.text
        assert any(path.startswith("/realms/acme/.well-known/openid-configuration") for path in redirector.paths), redirector.paths
        time.sleep(0.3)
        assert metadata.paths == [], f"the redirect was followed to {metadata.paths}"


def test_a_hooks_and_a_webhooks_redirect_is_not_followed(tmp_path, metadata, redirector):
    """A custom-access-token hook and a webhook endpoint answering 302 to an internal address: the
    sign-in fails with the hook's error, no webhook is delivered, and the internal listener is
    never asked."""
    with serving(tmp_path, env={
        "GOTRUE_SITE_URL": "http://localhost:3000",
        "GOTRUE_JWT_SECRET": SECRET,
        "GOTRUE_MAILER_AUTOCONFIRM": "true",
        "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true",
        "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": redirector.url("/hook"),
        "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS": HOOK_SECRET,
        "LATCHKEY_WEBHOOK_URL": redirector.url("/webhook"),
        "LATCHKEY_WEBHOOK_SECRET": HOOK_SECRET,
        "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
    }) as url:
        email = f"outbound.{uuid.uuid4().hex[:8]}@example.com"
        created = httpx.post(f"{url}/admin/users", headers=service_headers(),
                             json={"email": email, "password": PASSWORD, "email_confirm": True}, trust_env=False)
        assert created.status_code == 200, created.text
        signed_in = httpx.post(f"{url}/token", params={"grant_type": "password"},
                               json={"email": email, "password": PASSWORD}, trust_env=False)
        assert signed_in.status_code >= 400, signed_in.text
        assert "access_token" not in signed_in.text
        # The webhook for `user.created` is tried (and answered 302) within the outbox's rounds.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any(p.startswith("/webhook") for p in redirector.paths):
            time.sleep(0.2)
        assert any(p.startswith("/webhook") for p in redirector.paths), redirector.paths
        assert any(p.startswith("/hook") for p in redirector.paths), redirector.paths
        time.sleep(0.5)
        assert metadata.paths == [], f"a redirect was followed to {metadata.paths}"
