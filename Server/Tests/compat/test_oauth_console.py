"""The operators' console and the OAuth server (#40): the clients listed, a user's grants shown
with the client's sessions, and an operator revoking a grant, which ends the client's sessions and
is audited with the operator as actor."""

from __future__ import annotations

import re
import urllib.parse
import uuid

import httpx

from hosted_app import PKCE, app, create_user, server  # noqa: F401 - app and server are fixtures
from test_supabase_admin import service_headers


def grant(server: str, client: dict, token: str) -> dict:
    """The user approves the client through the API (as an app's consent page would) and the
    client exchanges its code: the client's tokens."""
    flow = PKCE()
    query = urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": client["redirect_uris"][0], "response_type": "code", "scope": "email",
        "code_challenge": flow.challenge, "code_challenge_method": "S256"})
    location = httpx.get(f"{server}/oauth/authorize?{query}", trust_env=False).headers["location"]
    authorization_id = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["authorization_id"][0]
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{server}/oauth/authorizations/{authorization_id}", headers=headers, trust_env=False).status_code == 200
    back = httpx.post(f"{server}/oauth/authorizations/{authorization_id}/consent", json={"action": "approve"}, headers=headers,
                      trust_env=False).json()["redirect_url"]
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)["code"][0]
    tokens = httpx.post(f"{server}/oauth/token", trust_env=False, auth=(client["client_id"], client["client_secret"]), data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": client["redirect_uris"][0], "code_verifier": flow.verifier})
    assert tokens.status_code == 200, tokens.text
    return tokens.json()


def test_an_operator_sees_clients_and_grants_and_revokes_one(server, app):
    name = f"Printer {uuid.uuid4().hex[:6]}"
    client = httpx.post(f"{server}/oauth/clients/register", trust_env=False, json={
        "client_name": name, "redirect_uris": ["https://rp.example.com/cb"], "token_endpoint_auth_method": "client_secret_basic"})
    assert client.status_code == 201, client.text
    client = client.json()
    email = f"console-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    user_id = create_user(server, email, password)
    token = httpx.post(f"{server}/token?grant_type=password", json={"email": email, "password": password},
                       trust_env=False).json()["access_token"]
    tokens = grant(server, client, token)

    with httpx.Client(trust_env=False, follow_redirects=False) as console:
        page = console.get(f"{server}/ui/admin/sign-in")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        signed_in = console.post(f"{server}/ui/admin/sign-in", data={
            "csrf": csrf, "token": service_headers()["Authorization"].removeprefix("Bearer ")})
        assert signed_in.status_code == 303, signed_in.text
        clients = console.get(f"{server}/ui/admin/oauth-clients")
        assert clients.status_code == 200 and name in clients.text and client["client_id"] in clients.text
        assert client["client_secret"] not in clients.text
        user = console.get(f"{server}/ui/admin/user", params={"id": user_id})
        assert "Applications with access" in user.text and f"{name} (email)" in user.text and f"(for {name})" in user.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', user.text).group(1)
        revoked = console.post(f"{server}/ui/admin/revoke-grant", data={"csrf": csrf, "id": user_id, "client": client["client_id"]})
        assert revoked.status_code == 303 and "done=grant-revoked" in revoked.headers["location"]
        after = console.get(f"{server}/ui/admin/user", params={"id": user_id})
        assert f"{name} (email)" not in after.text and f"(for {name})" not in after.text

    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{server}/user/oauth/grants", headers=headers, trust_env=False).json() == []
    refresh = httpx.post(f"{server}/oauth/token", trust_env=False, auth=(client["client_id"], client["client_secret"]), data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert refresh.status_code == 400
    audit = httpx.get(f"{server}/admin/audit", params={"action": "oauth_consent_revoked"}, headers=service_headers(),
                      trust_env=False).json()
    mine = [e["payload"] for e in audit if e["payload"]["traits"].get("client_id") == client["client_id"]]
    assert mine and mine[0]["actor_username"] == "service_role", audit
