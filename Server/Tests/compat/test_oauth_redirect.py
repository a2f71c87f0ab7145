"""The redirect flow (`GET /authorize`, `GET|POST /callback`) against the local OpenID provider
stand-in: Google-shaped with the implicit fragment and with PKCE, Apple's form post with the
client secret Latchkey makes from a `.p8` key, replayed and forged states, provider errors, and
supabase-py's `sign_in_with_oauth`. A flow belongs to the browser that started it: `/authorize` sets
the `lk_oauth` cookie and `/callback` refuses a state without it, so each test drives the flow
with one `httpx.Client` (its cookie jar plays the browser)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import supabase_client
from oidc_standin import OIDCStandIn
from test_cli import _start_server

GOOGLE_CLIENT = "g-web.apps.example"
APPLE_SERVICE = "com.example.web"
APP = "http://localhost:3000"
REFUSED_AT_PROVIDER = "The sign-in was cancelled or refused at the provider."  # the server's text for access_denied


def google_and_apple_env(provider: OIDCStandIn, apple_key) -> dict:
    """The settings of Google and Apple on the stand-in (Apple's client secret made by Latchkey from
    `apple_key`), with manual linking on: shared by the redirect-flow suites."""
    google, apple = provider.issuer("google"), provider.issuer("apple")
    pem = apple_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()).decode()
    return {
        "GOTRUE_URI_ALLOW_LIST": "myapp://callback",
        "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true",
        "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": GOOGLE_CLIENT,
        "GOTRUE_EXTERNAL_GOOGLE_SECRET": google.secret,
        "LATCHKEY_EXTERNAL_GOOGLE_ISSUER": google.url,
        "GOTRUE_EXTERNAL_APPLE_ENABLED": "true",
        "GOTRUE_EXTERNAL_APPLE_CLIENT_ID": APPLE_SERVICE,
        "LATCHKEY_EXTERNAL_APPLE_ISSUER": apple.url,
        "LATCHKEY_EXTERNAL_APPLE_TEAM_ID": "TEAM123",
        "LATCHKEY_EXTERNAL_APPLE_KEY_ID": "KEY123",
        "LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY": pem,
        "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
    }


def apple_secret_check(public_key):
    """Checks a client secret as Apple does: the one Latchkey made with the `.p8` key (ES256, kid,
    iss the team, sub the client it is sent as, aud Apple)."""
    def check(client_id, secret):
        header = pyjwt.get_unverified_header(secret)
        claims = pyjwt.decode(secret, public_key, algorithms=["ES256"], audience="https://appleid.apple.com")
        return header.get("kid") == "KEY123" and claims["iss"] == "TEAM123" and claims["sub"] == client_id
    return check


@pytest.fixture(scope="module")
def apple_key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="module")
def setup(apple_key, tmp_path_factory):
    with OIDCStandIn() as provider:
        google, apple = provider.issuer("google"), provider.issuer("apple")
        apple.check_secret = apple_secret_check(apple_key.public_key())
        env = {
            "GOTRUE_SITE_URL": APP,
            **google_and_apple_env(provider, apple_key),
            "GOTRUE_EXTERNAL_GITHUB_ENABLED": "true",
            "GOTRUE_EXTERNAL_GITHUB_CLIENT_ID": "gh-client",
            "GOTRUE_EXTERNAL_GITHUB_SECRET": provider.issuer("github").secret,
            "GOTRUE_EXTERNAL_GITHUB_URL": provider.issuer("github").url,
            "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true",
            "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": "kc-app",
            "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": provider.issuer("keycloak").secret,
            "GOTRUE_EXTERNAL_KEYCLOAK_URL": provider.issuer("keycloak").url,
        }
        process, url, log = _start_server(tmp_path_factory.mktemp("oauth"), env=env)
        try:
            yield url, provider
        finally:
            process.terminate()
            process.wait(timeout=20)
            log.close()


@pytest.fixture
def browser():
    """One browser: its cookie jar keeps the `lk_oauth` cookie `/authorize` sets and sends it to `/callback`."""
    with httpx.Client(trust_env=False, follow_redirects=False) as client:
        yield client


def authorize(browser: httpx.Client, url: str, **params) -> dict:
    answer = browser.get(f"{url}/authorize", params=params)
    assert answer.status_code == 302, answer.text
    assert "lk_oauth" in browser.cookies, answer.headers.get_list("set-cookie")
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}


def callback(browser: httpx.Client, url: str, *, method: str = "GET", **params) -> tuple[str, dict, dict]:
    if method == "GET":
        answer = browser.get(f"{url}/callback", params=params)
    else:
        answer = browser.post(f"{url}/callback", data=params)
    assert answer.status_code == 303, answer.text
    parts = urlsplit(answer.headers["location"])
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    fragment = {k: v[0] for k, v in parse_qs(parts.fragment, keep_blank_values=True).items()}
    return f"{parts.scheme}://{parts.netloc}{parts.path}", query, fragment


def google_claims(google, sub: str | None = None, email: str | None = None, verified: bool = True) -> dict:
    sub = sub or uuid.uuid4().hex
    return google.claims(sub, GOOGLE_CLIENT, email=email or f"{sub[:8]}@example.com", email_verified=verified, name="Ada")


def test_the_implicit_flow_returns_the_session_in_the_fragment(setup, browser):
    url, provider = setup
    google = provider.issuer("google")
    params = authorize(browser, url, provider="google", redirect_to="myapp://callback", scopes="https://www.googleapis.com/auth/drive")
    assert params["client_id"] == GOOGLE_CLIENT and params["redirect_uri"] == f"{url}/callback" and params["response_type"] == "code"
    assert params["scope"].split() == ["openid", "email", "profile", "https://www.googleapis.com/auth/drive"]
    assert params["code_challenge_method"] == "S256" and len(params["nonce"]) == 64 and "redirect_to" not in params
    code = google.approve(params, google_claims(google))
    target, query, fragment = callback(browser, url, state=params["state"], code=code)
    assert target == "myapp://callback" and query == {}
    assert sorted(fragment) == ["access_token", "expires_at", "expires_in", "provider_token", "refresh_token", "sb", "token_type"]
    assert fragment["provider_token"].startswith("provider-access-") and fragment["token_type"] == "bearer"
    user = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {fragment['access_token']}"}, trust_env=False).json()
    assert user["app_metadata"]["provider"] == "google" and user["identities"][0]["provider"] == "google"
    # The token endpoint got the code with the secret and Latchkey's PKCE verifier.
    sent = google.token_requests[-1]
    assert sent["client_secret"] == google.secret and sent["code_verifier"]

    # The same state again: refused, to the site URL.
    target, query, fragment = callback(browser, url, state=params["state"], code=google.approve(params, google_claims(google)))
    assert target == APP + "/" or target == APP
    assert query["error_code"] == "bad_oauth_state" and query["error_description"] == "OAuth state has already been used"


def test_pkce_returns_a_code_for_the_app_to_exchange(setup, browser):
    url, provider = setup
    google = provider.issuer("google")
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    params = authorize(browser, url, provider="google", redirect_to="myapp://callback", code_challenge=challenge, code_challenge_method="s256")
    target, query, fragment = callback(browser, url, state=params["state"], code=google.approve(params, google_claims(google)))
    assert target == "myapp://callback" and set(query) == {"code"} and fragment == {}
    wrong = httpx.post(f"{url}/token", params={"grant_type": "pkce"}, json={"auth_code": query["code"], "code_verifier": "x" * 43},
                       trust_env=False)
    assert wrong.status_code == 400
    # A wrong verifier spends nothing (as on GoTrue): the good one exchanges the same code, once.
    session = httpx.post(f"{url}/token", params={"grant_type": "pkce"},
                         json={"auth_code": query["code"], "code_verifier": verifier}, trust_env=False)
    again = httpx.post(f"{url}/token", params={"grant_type": "pkce"},
                       json={"auth_code": query["code"], "code_verifier": verifier}, trust_env=False)
    assert again.status_code == 404 and again.json()["error_code"] == "flow_state_not_found"
    assert session.status_code == 200 and session.json()["user"]["app_metadata"]["provider"] == "google"


def test_forged_states_provider_errors_and_refused_exchanges(setup, browser):
    url, provider = setup
    google = provider.issuer("google")
    params = authorize(browser, url, provider="google", redirect_to="https://evil.example/steal")
    # Missing and forged states go to the site URL.
    _, query, _ = callback(browser, url, code="x")
    assert query["error_code"] == "bad_oauth_callback"
    _, query, _ = callback(browser, url, state=params["state"][:-4] + "AAAA", code="x")
    assert query["error_code"] == "bad_oauth_state" and query["error_description"] == "OAuth state parameter is invalid"
    # Malformed queries (bad escapes, repeats, huge values) are refusals, never a crash.
    for raw in ["state=%zz&code=a%2", "state=&state=x", "state=" + "A" * 9000, "code=%00&state=%FF%FE"]:
        answer = httpx.get(f"{url}/callback?{raw}", trust_env=False, follow_redirects=False)
        assert answer.status_code in (303, 400), (raw, answer.status_code)
        form = httpx.post(f"{url}/verify", content=raw.encode(), trust_env=False, follow_redirects=False,
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert form.status_code in (303, 400), (raw, form.status_code)
    # A redirect_to off the allow list falls back to the site URL; the provider's refusal is passed on
    # as its OAuth code with a fixed text of ours, never the provider's own text.
    target, query, fragment = callback(browser, url, state=params["state"], error="access_denied", error_description="The user said no")
    assert target.rstrip("/") == APP and query == {"error": "access_denied", "error_description": REFUSED_AT_PROVIDER}
    assert fragment["error"] == "access_denied" and fragment["error_description"] == REFUSED_AT_PROVIDER and "sb" in fragment
    # A code the provider does not know.
    params = authorize(browser, url, provider="google", redirect_to="myapp://callback")
    target, query, _ = callback(browser, url, state=params["state"], code="not-a-code")
    assert target == "myapp://callback" and query["error"] == "server_error" and query["error_code"] == "unexpected_failure"
    # An unverified address: GoTrue's access_denied, nothing signed in.
    params = authorize(browser, url, provider="google", redirect_to="myapp://callback")
    _, query, _ = callback(browser, url, state=params["state"], code=google.approve(params, google_claims(google, verified=False)))
    assert query["error"] == "access_denied" and query["error_code"] == "provider_email_needs_verification"
    # Unknown and disabled providers are refused before any redirect.
    for name in ["gitlab", "azure"]:
        answer = httpx.get(f"{url}/authorize", params={"provider": name}, trust_env=False, follow_redirects=False)
        assert answer.status_code == 400 and answer.json()["error_code"] == "validation_failed"


def test_apple_posts_back_and_gets_a_secret_latchkey_made(setup, browser):
    url, provider = setup
    apple = provider.issuer("apple")
    params = authorize(browser, url, provider="apple", redirect_to="myapp://callback", scopes="ignored")
    assert params["response_mode"] == "form_post" and params["scope"] == "name email" and "code_challenge" not in params
    sub = f"001234.{uuid.uuid4().hex}.0101"
    claims = apple.claims(sub, APPLE_SERVICE, email=f"{uuid.uuid4().hex[:10]}@privaterelay.appleid.com", email_verified="true",
                          is_private_email="true")
    code = apple.approve(params, claims)
    user = json.dumps({"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email": claims["email"]})
    target, query, fragment = callback(browser, url, method="POST", state=params["state"], code=code, user=user)
    assert target == "myapp://callback" and "access_token" in fragment, (query, fragment)
    me = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {fragment['access_token']}"}, trust_env=False).json()
    assert me["user_metadata"]["full_name"] == "Ada Lovelace" and me["email"] == claims["email"]


def test_supabase_py_sign_in_with_oauth_starts_the_flow(setup, browser):
    url, provider = setup
    client = supabase_client(url, flow_type="pkce")
    answer = client.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://callback"}})
    start = browser.get(answer.url)
    assert start.status_code == 302 and start.headers["location"].startswith(f"{provider.issuer('google').url}/authorize?")
    assert "lk_oauth" in browser.cookies, start.headers.get_list("set-cookie")
    params = {k: v[0] for k, v in parse_qs(urlsplit(start.headers["location"]).query).items()}
    assert params["client_id"] == GOOGLE_CLIENT and params["state"]
    client.close()


def test_a_signed_in_user_links_and_unlinks_a_provider(setup, browser):
    url, provider = setup
    google, apple = provider.issuer("google"), provider.issuer("apple")
    params = authorize(browser, url, provider="google", redirect_to="myapp://callback")
    _, _, fragment = callback(browser, url, state=params["state"], code=google.approve(params, google_claims(google)))
    bearer = {"Authorization": f"Bearer {fragment['access_token']}"}
    start = httpx.get(f"{url}/user/identities/authorize", params={"provider": "apple", "skip_http_redirect": "true",
                      "redirect_to": "myapp://callback"}, headers=bearer, trust_env=False)
    assert start.status_code == 200, start.text
    # The answer is a one-use ticket on the server; the browser opens it (no bearer), gets the
    # binding cookie and is sent on to the provider.
    ticket = start.json()["url"]
    assert ticket.startswith(f"{url}/user/identities/continue?ticket="), ticket
    opened = browser.get(ticket)
    assert opened.status_code == 302 and opened.headers["location"].startswith(f"{apple.url}/authorize?"), opened.text
    link = {k: v[0] for k, v in parse_qs(urlsplit(opened.headers["location"]).query).items()}
    claims = apple.claims(f"001.{uuid.uuid4().hex}", APPLE_SERVICE, email=f"{uuid.uuid4().hex[:8]}@example.com")
    _, query, linked = callback(browser, url, method="POST", state=link["state"], code=apple.approve(link, claims))
    assert "access_token" in linked, query
    me = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {linked['access_token']}"}, trust_env=False).json()
    assert sorted(i["provider"] for i in me["identities"]) == ["apple", "google"]
    apple_identity = next(i for i in me["identities"] if i["provider"] == "apple")
    gone = httpx.delete(f"{url}/user/identities/{apple_identity['identity_id']}", headers=bearer, trust_env=False)
    assert gone.status_code == 200, gone.text
    me = httpx.get(f"{url}/user", headers=bearer, trust_env=False).json()
    assert [i["provider"] for i in me["identities"]] == ["google"] and me["app_metadata"]["providers"] == ["google"]
    last = httpx.delete(f"{url}/user/identities/{me['identities'][0]['identity_id']}", headers=bearer, trust_env=False)
    assert last.status_code == 422 and last.json()["error_code"] == "single_identity_not_deletable"
    unauthenticated = httpx.get(f"{url}/user/identities/authorize", params={"provider": "apple"}, trust_env=False)
    assert unauthenticated.status_code == 401


def test_github_signs_in_with_its_verified_primary_address_only(setup, browser):
    url, provider = setup
    github = provider.issuer("github")
    params = authorize(browser, url, provider="github", redirect_to="myapp://callback")
    assert params["scope"] == "user:email" and "nonce" not in params and params["client_id"] == "gh-client"
    login = f"ada{uuid.uuid4().hex[:6]}"
    verified = {"profile": {"id": 5823001, "login": login, "name": "Ada", "avatar_url": "https://avatars.example/ada"},
                "emails": [{"email": f"{login}@old.example", "verified": True, "primary": False},
                           {"email": f"{login}@example.com", "verified": True, "primary": True}]}
    _, query, fragment = callback(browser, url, state=params["state"], code=github.approve(params, verified))
    assert "access_token" in fragment, query
    me = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {fragment['access_token']}"}, trust_env=False).json()
    identity = me["identities"][0]
    assert me["email"] == f"{login}@example.com" and identity["provider"] == "github" and identity["id"] == "5823001"
    assert identity["identity_data"]["user_name"] == login and identity["identity_data"]["iss"] == f"{github.url}/api/v3"
    # A primary address GitHub has not verified signs nobody in.
    other = f"eve{uuid.uuid4().hex[:6]}"
    unverified = {"profile": {"id": 777, "login": other},
                  "emails": [{"email": f"{other}@example.com", "verified": False, "primary": True}]}
    params = authorize(browser, url, provider="github", redirect_to="myapp://callback")
    _, query, _ = callback(browser, url, state=params["state"], code=github.approve(params, unverified))
    assert query["error"] == "access_denied" and query["error_code"] == "provider_email_needs_verification"
    # GitHub is no id-token provider.
    answer = httpx.post(f"{url}/token", params={"grant_type": "id_token"}, json={"provider": "github", "id_token": "x.y.z"},
                        trust_env=False)
    assert answer.status_code == 400 and answer.json()["msg"] == 'Custom OIDC provider "github" not allowed'


def test_keycloak_signs_in_by_id_token_and_through_the_redirect_flow(setup, browser):
    url, provider = setup
    keycloak = provider.issuer("keycloak")
    sub = str(uuid.uuid4())
    claims = keycloak.claims(sub, "kc-app", email=f"kc-{sub[:8]}@example.com", email_verified=True, preferred_username="ada")
    token = httpx.post(f"{url}/token", params={"grant_type": "id_token"},
                       json={"provider": "keycloak", "id_token": keycloak.token(claims)}, trust_env=False)
    assert token.status_code == 200, token.text
    user = token.json()["user"]
    assert user["identities"][0]["provider"] == "keycloak" and user["identities"][0]["identity_data"]["preferred_username"] == "ada"
    # A Keycloak token that types email_verified as a string is a bad token (strict claims).
    loose = dict(claims, email_verified="true")
    refused = httpx.post(f"{url}/token", params={"grant_type": "id_token"},
                         json={"provider": "keycloak", "id_token": keycloak.token(loose)}, trust_env=False)
    assert refused.status_code == 400 and refused.json()["error_description"] == "Bad ID token"
    # The redirect flow: the same user comes back.
    params = authorize(browser, url, provider="keycloak", redirect_to="myapp://callback")
    assert params["scope"] == "openid profile email" and params["code_challenge_method"] == "S256"
    _, query, fragment = callback(browser, url, state=params["state"], code=keycloak.approve(params, claims))
    assert "access_token" in fragment, query
    me = httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {fragment['access_token']}"}, trust_env=False).json()
    assert me["id"] == user["id"]
