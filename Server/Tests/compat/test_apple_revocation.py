"""Sign in with Apple's tokens revoked with the account (issue #36; App Store Review Guideline
5.1.1(v)): the `authorization_code` an app sends with Apple's id token is exchanged at Apple's token
endpoint with the client secret Latchkey makes for the app's bundle id, the refresh token kept
sealed, and revoked at Apple's revocation endpoint when the account is deleted, by the user
(`DELETE /user`) or an operator; the web flow's refresh token too. Apple is the local OpenID
stand-in."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from oidc_standin import OIDCStandIn
from test_cli import _start_server
from test_oauth_redirect import APPLE_SERVICE, apple_secret_check, authorize, callback, google_and_apple_env
from test_supabase_admin import SECRET, service_headers

BUNDLE = "com.example.app"


@pytest.fixture(scope="module")
def apple_setup(tmp_path_factory):
    key = ec.generate_private_key(ec.SECP256R1())
    with OIDCStandIn() as provider:
        apple = provider.issuer("apple")
        apple.check_secret = apple_secret_check(key.public_key())
        data = tmp_path_factory.mktemp("apple-revocation")
        env = {
            **google_and_apple_env(provider, key), "GOTRUE_EXTERNAL_IOS_BUNDLE_ID": BUNDLE, "GOTRUE_SITE_URL": "http://localhost:3000",
            "GOTRUE_JWT_SECRET": SECRET,
        }
        process, url, log = _start_server(data, env=env)
        try:
            yield url, apple, data
        finally:
            process.terminate()
            process.wait(timeout=20)
            log.close()


def native_sign_in(url: str, apple, code: str | None = None) -> dict:
    raw = secrets.token_urlsafe(16)
    claims = apple.claims(f"001.{uuid.uuid4().hex}", BUNDLE, email=f"{uuid.uuid4().hex[:10]}@privaterelay.appleid.com",
                          email_verified="true", nonce=hashlib.sha256(raw.encode()).hexdigest())
    body = {"provider": "apple", "id_token": apple.token(claims), "nonce": raw}
    if code == "<approved>":
        code = apple.approve_native(BUNDLE, claims)
    if code is not None:
        body["authorization_code"] = code
    answer = httpx.post(f"{url}/token", params={"grant_type": "id_token"}, json=body, trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_apps_code_is_exchanged_kept_sealed_and_revoked_when_the_user_deletes_the_account(apple_setup):
    url, apple, data = apple_setup
    before = len(apple.token_requests)
    session = native_sign_in(url, apple, code="<approved>")
    exchange = apple.token_requests[before]
    assert exchange["client_id"] == BUNDLE and "redirect_uri" not in exchange and exchange["grant_type"] == "authorization_code"
    refresh = f"provider-refresh-{exchange['code'][:12]}"
    # Sealed at rest: the refresh token is nowhere in the data folder in the clear.
    for file in Path(data).rglob("*"):
        if file.is_file():
            assert refresh.encode() not in file.read_bytes(), file
    revoked = len(apple.revocations)
    deleted = httpx.delete(f"{url}/user", headers={"Authorization": f"Bearer {session['access_token']}"}, trust_env=False)
    assert deleted.status_code == 204, deleted.text
    assert apple.revocations[revoked:] == [
        {"client_id": BUNDLE, "client_secret": apple.revocations[revoked]["client_secret"], "token": refresh,
         "token_type_hint": "refresh_token"}]
    assert apple.check_secret(BUNDLE, apple.revocations[revoked]["client_secret"])


def test_a_code_apple_refuses_or_none_signs_in_and_revokes_nothing(apple_setup):
    url, apple, _ = apple_setup
    revoked = len(apple.revocations)
    for code in ["not-a-code-apple-gave", None, "x" * 5000]:
        session = native_sign_in(url, apple, code=code)
        deleted = httpx.delete(f"{url}/user", headers={"Authorization": f"Bearer {session['access_token']}"}, trust_env=False)
        assert deleted.status_code == 204
    assert len(apple.revocations) == revoked


def test_the_web_flows_token_is_revoked_when_an_operator_deletes_the_user(apple_setup):
    url, apple, _ = apple_setup
    with httpx.Client(trust_env=False, follow_redirects=False) as browser:
        params = authorize(browser, url, provider="apple", redirect_to="myapp://callback")
        claims = apple.claims(f"001.{uuid.uuid4().hex}", APPLE_SERVICE, email=f"{uuid.uuid4().hex[:10]}@example.com",
                              email_verified="true")
        code = apple.approve(params, claims)
        _, query, fragment = callback(browser, url, method="POST", state=params["state"], code=code)
    assert "access_token" in fragment, query
    me = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {fragment['access_token']}"}, trust_env=False).json()
    revoked = len(apple.revocations)
    gone = httpx.delete(f"{url}/admin/users/{me['id']}", headers=service_headers(), trust_env=False)
    assert gone.status_code == 200, gone.text
    assert [(r["client_id"], r["token"]) for r in apple.revocations[revoked:]] == [(APPLE_SERVICE, f"provider-refresh-{code[:12]}")]
