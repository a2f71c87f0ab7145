"""Latchkey federating with itself (#40): a second instance (B) configured with the first (A) as a
custom OpenID provider (`custom:a`, #19) signs a user in through A's authorization server, end to
end over HTTP: B finds A by discovery, sends the browser to A's `/oauth/authorize` with PKCE and a
nonce, A's app approves on its consent page, B exchanges the code at A's token endpoint with its
client secret (`client_secret_post`), verifies A's id_token against A's published keys, and makes
the user, whose address and name came from A."""

from __future__ import annotations

import urllib.parse
import uuid

import httpx
import pytest

from conftest import _free_port
from test_cli import serving
from test_supabase_admin import SECRET, service_headers

A_SITE = "http://app.a.test"
B_SITE = "http://app.b.test"
PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    a_env = {
        "LATCHKEY_PROFILE": "strict",
        "GOTRUE_SITE_URL": A_SITE,
        "GOTRUE_MAILER_AUTOCONFIRM": "true",
        "GOTRUE_OAUTH_SERVER_ENABLED": "true",
        "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
        "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH": "/consent",
        "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
    }
    b_port = _free_port()
    b_env = {"GOTRUE_JWT_SECRET": SECRET, "GOTRUE_SITE_URL": B_SITE, "API_EXTERNAL_URL": f"http://127.0.0.1:{b_port}"}
    with serving(tmp_path_factory.mktemp("federation-a"), env=a_env) as a_url, \
            serving(tmp_path_factory.mktemp("federation-b"), port=b_port, env=b_env) as b_url:
        yield a_url, b_url


def test_a_second_latchkey_signs_a_user_in_through_the_first(instances):
    a, b = instances
    # A: B registered as a confidential client posting its secret (as B's provider client does).
    client = httpx.post(f"{a}/oauth/clients/register", trust_env=False, json={
        "client_name": "Instance B", "redirect_uris": [f"{b}/callback"], "token_endpoint_auth_method": "client_secret_post"})
    assert client.status_code == 201, client.text
    client = client.json()
    # B: A as a custom OpenID provider, found by discovery from its issuer.
    issuer = httpx.get(f"{a}/.well-known/openid-configuration", trust_env=False).json()["issuer"]
    made = httpx.post(f"{b}/admin/custom-providers", headers=service_headers(), trust_env=False, json={
        "provider_type": "oidc", "identifier": "custom:a", "name": "Instance A", "issuer": issuer,
        "client_id": client["client_id"], "client_secret": client["client_secret"], "scopes": ["openid", "email", "profile"],
        "pkce_enabled": True})
    assert made.status_code == 201, made.text

    # A's user, signed in to A's app.
    email = f"fed-{uuid.uuid4().hex[:8]}@example.com"
    signed_up = httpx.post(f"{a}/signup", trust_env=False, json={"email": email, "password": PASSWORD, "data": {"name": "Ada"}})
    assert signed_up.status_code == 200, signed_up.text
    a_token = signed_up.json()["access_token"]

    with httpx.Client(trust_env=False, follow_redirects=False) as browser:
        start = browser.get(f"{b}/authorize", params={"provider": "custom:a"})
        assert start.status_code == 302, start.text
        to_a = start.headers["location"]
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(to_a).query)
        assert to_a.startswith(f"{a}/oauth/authorize?") and query["code_challenge_method"] == ["S256"] and query.get("nonce")
        at_a = browser.get(to_a)
        assert at_a.status_code == 302, at_a.text
        consent = urllib.parse.urlsplit(at_a.headers["location"])
        assert f"{consent.scheme}://{consent.netloc}{consent.path}" == f"{A_SITE}/consent"
        authorization_id = urllib.parse.parse_qs(consent.query)["authorization_id"][0]

        # A's consent page, with A's user's token.
        headers = {"Authorization": f"Bearer {a_token}"}
        details = httpx.get(f"{a}/oauth/authorizations/{authorization_id}", headers=headers, trust_env=False).json()
        assert details["client"]["name"] == "Instance B" and details["scope"] == "openid email profile"
        approved = httpx.post(f"{a}/oauth/authorizations/{authorization_id}/consent", json={"action": "approve"}, headers=headers,
                              trust_env=False)
        assert approved.status_code == 200, approved.text
        back = approved.json()["redirect_url"]
        assert back.startswith(f"{b}/callback?")

        # B's callback: the code exchanged at A, A's id_token verified, B's session made.
        done = browser.get(back)
        assert done.status_code == 303, done.text
        landing = urllib.parse.urlsplit(done.headers["location"])
        assert f"{landing.scheme}://{landing.netloc}" == B_SITE
        fragment = urllib.parse.parse_qs(landing.fragment)
        assert "error" not in fragment, fragment
        b_token = fragment["access_token"][0]

    me = httpx.get(f"{b}/user", headers={"Authorization": f"Bearer {b_token}"}, trust_env=False).json()
    assert me["email"] == email and me["app_metadata"]["provider"] == "custom:a"
    identity = me["identities"][0]
    assert identity["provider"] == "custom:a" and identity["identity_data"]["name"] == "Ada"
    # A remembers the grant; revoking it there ends B's session at A (B's own session is B's).
    grants = httpx.get(f"{a}/user/oauth/grants", headers=headers, trust_env=False).json()
    assert [g["client"]["name"] for g in grants] == ["Instance B"]
