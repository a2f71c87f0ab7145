"""Sign in with an id token (`POST /token?grant_type=id_token`) against a local OpenID provider
stand-in: supabase-py's `sign_in_with_id_token`, key rotation, GoTrue's refusals for every kind
of bad token, Apple-shaped tokens, and the linking rules."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid

import httpx
import jwt as pyjwt
import pytest

from conftest import supabase_client
from oidc_standin import Key, OIDCStandIn
from test_cli import _start_server
from test_supabase_admin import SECRET, service_admin, service_headers

GOOGLE_CLIENT = "g-web.apps.example"
APPLE_CLIENT = "com.example.app"


@pytest.fixture(scope="module")
def provider():
    with OIDCStandIn() as standin:
        yield standin


@pytest.fixture(scope="module")
def server(provider, tmp_path_factory):
    google, apple = provider.issuer("google"), provider.issuer("apple")
    env = {
        "GOTRUE_JWT_SECRET": SECRET,
        "GOTRUE_MAILER_AUTOCONFIRM": "false",
        "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "10000",
        "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true",
        "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": f"{GOOGLE_CLIENT},another-client",
        "LATCHKEY_EXTERNAL_GOOGLE_ISSUER": google.url,
        "GOTRUE_EXTERNAL_APPLE_ENABLED": "true",
        "GOTRUE_EXTERNAL_APPLE_CLIENT_ID": "com.example.web",
        "GOTRUE_EXTERNAL_IOS_BUNDLE_ID": APPLE_CLIENT,
        "LATCHKEY_EXTERNAL_APPLE_ISSUER": apple.url,
    }
    tmp = tmp_path_factory.mktemp("id-token")
    process, url, log = _start_server(tmp, env=env)
    admin = service_admin(url)
    try:
        yield url, admin
    finally:
        admin.close()
        process.terminate()
        process.wait(timeout=20)
        log.close()


def grant(url: str, body: dict) -> httpx.Response:
    return httpx.post(f"{url}/token", params={"grant_type": "id_token"}, json=body, trust_env=False, timeout=10)


def nonce_pair() -> tuple[str, str]:
    raw = uuid.uuid4().hex
    return raw, hashlib.sha256(raw.encode()).hexdigest()


def user_count(admin) -> int:
    return len(admin.list_users(per_page=1000))


def test_supabase_py_signs_in_with_a_google_id_token(provider, server):
    url, admin = server
    google = provider.issuer("google")
    raw, hashed = nonce_pair()
    sub = uuid.uuid4().hex
    email = f"g-{sub[:8]}@example.com"
    token = google.token(google.claims(sub, GOOGLE_CLIENT, email=email, email_verified=True, name="Ada", nonce=hashed))
    client = supabase_client(url)
    answer = client.sign_in_with_id_token({"provider": "google", "token": token, "nonce": raw})
    assert answer.session is not None and answer.user.email == email and answer.user.email_confirmed_at is not None
    assert answer.user.app_metadata["provider"] == "google"
    assert [i.provider for i in answer.user.identities] == ["google"] and answer.user.identities[0].id == sub
    # The same subject again: the same user, a second session.
    again = client.sign_in_with_id_token({"provider": "google", "token": google.token(
        google.claims(sub, GOOGLE_CLIENT, email=email, email_verified=True, nonce=hashed)), "nonce": raw})
    assert again.user.id == answer.user.id and again.session.refresh_token != answer.session.refresh_token
    # An ES256 key of the same issuer signs too.
    es = next(k for k in google.keys if k.alg == "ES256")
    third = grant(url, {"provider": "google", "id_token": google.token(
        google.claims(sub, "another-client", email=email, email_verified=True), key=es)})
    assert third.status_code == 200 and third.json()["user"]["id"] == answer.user.id
    client.close()


def test_a_rotated_key_is_fetched_but_made_up_kids_do_not_hammer_the_provider(provider, server):
    url, _ = server
    google = provider.issuer("google")
    sub = uuid.uuid4().hex
    claims = google.claims(sub, GOOGLE_CLIENT, email=f"r-{sub[:8]}@example.com", email_verified=True)
    assert grant(url, {"provider": "google", "id_token": google.token(claims)}).status_code == 200
    fetched = google.jwks_fetches
    new = google.rotate("RS256")
    # The new key is unknown to the cache: one more fetch finds it (the floor may hold it back
    # for up to 30 s after the last fetch).
    deadline = time.monotonic() + 40
    while True:
        answer = grant(url, {"provider": "google", "id_token": google.token(claims, key=new)})
        if answer.status_code == 200 or time.monotonic() > deadline:
            break
        assert answer.json() == {"error": "invalid request", "error_description": "Bad ID token"}
        time.sleep(2)
    assert answer.status_code == 200
    after = google.jwks_fetches
    assert after >= fetched + 1
    # Tokens naming keys nobody published: refused, and fetched for at most once per floor.
    for _ in range(20):
        forged = google.token(claims, key=new, kid=f"made-up-{uuid.uuid4().hex[:6]}")
        assert grant(url, {"provider": "google", "id_token": forged}).status_code == 400
    assert google.jwks_fetches <= after + 1


def _b64(data: dict | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def test_every_bad_token_is_refused_as_gotrue_does_and_stores_nothing(provider, server):
    url, admin = server
    google, apple = provider.issuer("google"), provider.issuer("apple")
    stranger = Key("RS256")  # a key nobody published
    sub = uuid.uuid4().hex
    email = f"bad-{sub[:8]}@example.com"
    raw, hashed = nonce_pair()
    now = int(time.time())

    def claims(**changes):
        base = google.claims(sub, GOOGLE_CLIENT, email=email, email_verified=True)
        base.update(changes)
        return {k: v for k, v in base.items() if v is not None}

    rsa = google.keys[0]
    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims())}."
    hs256 = pyjwt.encode(claims(), GOOGLE_CLIENT + ".client-secret-of-32-bytes", algorithm="HS256", headers={"kid": rsa.kid})
    valid = google.token(claims())
    head, payload, signature = valid.split(".")
    tampered = f"{head}.{_b64(claims(sub='someone-else'))}.{signature}"
    bad = {"error": "invalid request", "error_description": "Bad ID token"}
    cases = [
        ({"provider": "google", "id_token": google.token(claims(aud="not-ours"))},
         {"error": "invalid request", "error_description": "Unacceptable audience in id_token: [not-ours]"}),
        ({"provider": "google", "id_token": google.token(claims(iss=apple.url))}, bad),
        ({"provider": "google", "id_token": google.token(claims(exp=now - 120))}, bad),
        ({"provider": "google", "id_token": google.token(claims(iat=now + 600))}, bad),
        ({"provider": "google", "id_token": google.token(claims(nonce=hashed))},
         {"error": "invalid request", "error_description": "Passed nonce and nonce in id_token should either both exist or not."}),
        ({"provider": "google", "id_token": google.token(claims(nonce=hashed)), "nonce": "wrong"},
         {"error": "invalid nonce", "error_description": "Nonces mismatch"}),
        ({"provider": "google", "id_token": unsigned}, bad),
        ({"provider": "google", "id_token": hs256}, bad),
        ({"provider": "google", "id_token": google.token(claims(), key=stranger)}, bad),
        ({"provider": "google", "id_token": google.token(claims(), key=rsa, alg="RS256", kid=google.keys[1].kid)}, bad),
        ({"provider": "google", "id_token": tampered}, bad),
        ({"provider": "google", "id_token": "not-a-jwt"}, bad),
        ({"provider": "google", "id_token": "a." * 20000}, bad),
        ({"provider": "google", "id_token": google.token(claims(sub=""))},
         {"error": "invalid request", "error_description": "Missing sub claim in id_token"}),
        ({"provider": "google", "id_token": ""}, {"error": "invalid request", "error_description": "id_token required"}),
        ({"id_token": valid}, {"error": "invalid request", "error_description": "provider or client_id and issuer required"}),
    ]
    before = user_count(admin)
    for body, expected in cases:
        answer = grant(url, body)
        assert (answer.status_code, answer.json()) == (400, expected), body
    validation = [
        ({"provider": "github", "id_token": valid}, 'Custom OIDC provider "github" not allowed'),
        ({"provider": "custom:acme", "id_token": valid}, 'Custom provider "acme" not found'),
        ({"provider": "apple", "id_token": valid}, "Detected ID token issuer is not an Apple ID token issuer"),
    ]
    for body, message in validation:
        answer = grant(url, body)
        assert answer.status_code == 400 and answer.json()["msg"] == message and answer.json()["error_code"] == "validation_failed"
    assert grant(url, {"provider": "keycloak", "id_token": valid}).json()["error_code"] == "provider_disabled"
    assert user_count(admin) == before
    # And the good token still signs in.
    assert grant(url, {"provider": "google", "id_token": google.token(claims(nonce=hashed)), "nonce": raw}).status_code == 200


def test_apple_shaped_tokens_with_string_flags_and_relay_addresses(provider, server):
    url, _ = server
    apple = provider.issuer("apple")
    sub = f"001234.{uuid.uuid4().hex}.0101"
    relay = f"{uuid.uuid4().hex[:10]}@privaterelay.appleid.com"
    raw, hashed = nonce_pair()
    token = apple.token(apple.claims(
        sub, APPLE_CLIENT, email=relay, email_verified="true", is_private_email="true", nonce=hashed, auth_time=int(time.time())))
    answer = grant(url, {"provider": "apple", "id_token": token, "nonce": raw, "data": {"full_name": "Ada Lovelace"}})
    assert answer.status_code == 200, answer.text
    user = answer.json()["user"]
    assert user["email"] == relay and user["email_confirmed_at"] and user["user_metadata"]["full_name"] == "Ada Lovelace"
    identity = user["identities"][0]
    assert identity["provider"] == "apple" and identity["identity_data"]["custom_claims"]["is_private_email"] is True


def test_an_unverified_address_never_links_and_a_verified_one_links_to_its_confirmed_owner(provider, server):
    url, admin = server
    google = provider.issuer("google")
    email = f"owner-{uuid.uuid4().hex[:8]}@example.com"
    owner = admin.create_user({"email": email, "password": "correct horse battery staple", "email_confirm": True}).user
    before = user_count(admin)
    unverified = google.token(google.claims(uuid.uuid4().hex, GOOGLE_CLIENT, email=email, email_verified=False))
    answer = grant(url, {"provider": "google", "id_token": unverified})
    assert answer.status_code == 422 and answer.json()["error_code"] == "provider_email_needs_verification"
    assert user_count(admin) == before
    verified = google.token(google.claims(uuid.uuid4().hex, GOOGLE_CLIENT, email=email, email_verified=True))
    linked = grant(url, {"provider": "google", "id_token": verified})
    assert linked.status_code == 200 and linked.json()["user"]["id"] == owner.id
    assert sorted(i["provider"] for i in linked.json()["user"]["identities"]) == ["email", "google"]
    # Someone holding an address they never confirmed keeps it, and does not get the session.
    squatted = f"squat-{uuid.uuid4().hex[:8]}@example.com"
    squatter = admin.create_user({"email": squatted, "password": "correct horse battery staple"}).user
    victim = grant(url, {"provider": "google", "id_token": google.token(
        google.claims(uuid.uuid4().hex, GOOGLE_CLIENT, email=squatted, email_verified=True))})
    assert victim.status_code == 200 and victim.json()["user"]["id"] != squatter.id and victim.json()["user"]["email"] == ""


def test_settings_report_the_enabled_providers(server):
    url, _ = server
    external = httpx.get(f"{url}/settings", trust_env=False).json()["external"]
    assert external["google"] is True and external["apple"] is True
    assert external["github"] is False and external["azure"] is False and external["email"] is True


def test_custom_providers_are_managed_by_operators_and_sign_users_in(provider, server):
    url, _ = server
    acme = provider.issuer("acme")
    admin = service_headers()
    base = f"{url}/admin/custom-providers"
    body = {"provider_type": "oidc", "identifier": "custom:acme", "name": "Acme SSO", "client_id": "acme-web",
            "client_secret": acme.secret, "acceptable_client_ids": ["acme-ios"], "issuer": acme.url}
    made = httpx.post(base, json=body, headers=admin, trust_env=False)
    assert made.status_code == 201, made.text
    assert made.json()["identifier"] == "custom:acme" and "client_secret" not in made.json()
    assert httpx.post(base, json=body, headers=admin, trust_env=False).status_code == 409
    for bad, message in [({"identifier": "acme"}, "identifier must start with 'custom:' prefix, e.g. 'custom:acme'"),
                         ({"issuer": "http://sso.example.com"}, "issuer must be an HTTPS URL (plain HTTP only on a loopback address)"),
                         ({"provider_type": "oauth2"}, "Only OIDC providers are supported (provider_type 'oidc')")]:
        answer = httpx.post(base, json={**body, **bad}, headers=admin, trust_env=False)
        assert answer.status_code == 400 and answer.json()["msg"] == message
    assert httpx.get(base, trust_env=False).status_code == 401
    listed = httpx.get(base, headers=admin, trust_env=False).json()["providers"]
    assert [p["identifier"] for p in listed] == ["custom:acme"]
    # The id-token grant with an audience the operator added.
    sub = uuid.uuid4().hex
    token = acme.token(acme.claims(sub, "acme-ios", email=f"{sub[:8]}@example.com", email_verified=True))
    signed = grant(url, {"provider": "custom:acme", "id_token": token})
    assert signed.status_code == 200 and signed.json()["user"]["identities"][0]["provider"] == "custom:acme"
    # The redirect flow too, with the sealed secret at the token endpoint.
    start = httpx.get(f"{url}/authorize", params={"provider": "custom:acme"}, trust_env=False, follow_redirects=False)
    assert start.status_code == 302 and start.headers["location"].startswith(f"{acme.url}/authorize?")
    # Disabled, then removed: refused.
    off = httpx.put(f"{base}/custom:acme", json={"enabled": False}, headers=admin, trust_env=False)
    assert off.status_code == 200 and off.json()["enabled"] is False
    assert grant(url, {"provider": "custom:acme", "id_token": token}).json()["error_code"] == "provider_disabled"
    assert httpx.delete(f"{base}/custom%3Aacme", headers=admin, trust_env=False).status_code == 204
    assert httpx.get(f"{base}/custom:acme", headers=admin, trust_env=False).status_code == 404
