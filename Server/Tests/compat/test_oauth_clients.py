"""The OAuth 2.1 server's clients (#40, step 1) over real HTTP: supabase-py's admin calls
(`admin.oauth.*`) end to end, dynamic registration (RFC 7591) with its switch and per-IP limit, a
table of redirect URIs a browser could be misled by, the secret kept only as a hash on disk, and
every route closed while the server is off."""

from __future__ import annotations

import sqlite3
import uuid

import httpx
import pytest
from supabase_auth import SyncGoTrueAdminAPI
from supabase_auth.errors import AuthApiError
from supabase_auth.types import CreateOAuthClientParams, UpdateOAuthClientParams

from test_cli import _start_server
from test_supabase_admin import SECRET, service_headers

ENV = {
    "GOTRUE_JWT_SECRET": SECRET,
    "GOTRUE_OAUTH_SERVER_ENABLED": "true",
    "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
    "GOTRUE_RATE_LIMIT_O_AUTH_DYNAMIC_CLIENT_REGISTER": "5",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("oauth-clients")
    process, url, log = _start_server(tmp, env=ENV)
    try:
        yield url, tmp
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def admin(url: str) -> SyncGoTrueAdminAPI:
    return SyncGoTrueAdminAPI(url=url, headers=service_headers())


def test_supabase_pys_admin_calls_manage_a_client(server):
    url, data = server
    api = admin(url)
    made = api.oauth.create_client(CreateOAuthClientParams(
        client_name="Example", redirect_uris=["https://app.example.com/callback"], client_uri="https://app.example.com")).client
    assert made.client_type == "confidential" and made.registration_type == "manual"
    assert made.token_endpoint_auth_method == "client_secret_basic" and made.response_types == ["code"]
    secret = made.client_secret
    assert secret and len(secret) == 43

    fetched = api.oauth.get_client(made.client_id).client
    assert fetched.client_secret is None and fetched.redirect_uris == ["https://app.example.com/callback"]
    assert made.client_id in [c.client_id for c in api.oauth.list_clients().clients]

    updated = api.oauth.update_client(made.client_id, UpdateOAuthClientParams(
        redirect_uris=["https://app.example.com/callback", "myapp://oauth"], client_name="Example 2")).client
    assert updated.redirect_uris == ["https://app.example.com/callback", "myapp://oauth"] and updated.client_name == "Example 2"

    renewed = api.oauth.regenerate_client_secret(made.client_id).client
    assert renewed.client_secret and renewed.client_secret != secret

    # On disk: a hash, never the secret.
    with sqlite3.connect(data / "latchkey.sqlite") as db:
        rows = db.execute("SELECT * FROM oauth_clients").fetchall()
    assert rows and not any(secret in str(row) or renewed.client_secret in str(row) for row in rows)

    api.oauth.delete_client(made.client_id)
    # Audited, with the client's id, never its secret.
    actions = "oauth_client_created,oauth_client_updated,oauth_client_secret_regenerated,oauth_client_deleted"
    audit = httpx.get(f"{url}/admin/audit", params={"action": actions}, headers=service_headers(), trust_env=False)
    assert audit.status_code == 200, audit.text
    mine = [e["payload"] for e in audit.json() if e["payload"]["traits"].get("client_id") == made.client_id]
    assert sorted(p["action"] for p in mine) == sorted(actions.split(","))
    assert all(p["log_type"] == "oauth" for p in mine) and secret not in audit.text and renewed.client_secret not in audit.text
    with pytest.raises(AuthApiError) as gone:
        api.oauth.get_client(made.client_id)
    assert gone.value.status == 404 and gone.value.code == "oauth_client_not_found"
    assert made.client_id not in [c.client_id for c in api.oauth.list_clients().clients]


def test_a_public_client_has_no_secret_and_the_routes_need_an_operator(server):
    url, _ = server
    made = httpx.post(f"{url}/admin/oauth/clients", headers=service_headers(), trust_env=False,
                      json={"redirect_uris": ["http://localhost:8765/cb"], "token_endpoint_auth_method": "none"})
    assert made.status_code == 201, made.text
    assert made.json()["client_type"] == "public" and "client_secret" not in made.json()
    again = httpx.post(f"{url}/admin/oauth/clients/{made.json()['client_id']}/regenerate_secret", headers=service_headers(),
                       trust_env=False)
    assert again.status_code == 400 and again.json()["error_code"] == "validation_failed"
    user = httpx.post(f"{url}/signup", json={"email": f"u-{uuid.uuid4().hex[:8]}@example.com", "password": "correct horse battery"},
                      trust_env=False).json()
    token = user.get("access_token")
    for method, path in [("GET", "/admin/oauth/clients"), ("POST", "/admin/oauth/clients"),
                         ("DELETE", f"/admin/oauth/clients/{made.json()['client_id']}")]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = httpx.request(method, f"{url}{path}", json={}, headers=headers, trust_env=False)
        assert answer.status_code in (401, 403), (path, answer.text)


@pytest.mark.parametrize("uri", [
    "javascript:alert(document.cookie)//", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd",
    "http://evil.example/cb", "https://app.example.com/cb#access_token", "//evil.example/cb", "https://app.example.com\\@evil.example",
    "https://user:pass@app.example.com/cb", "https://app.example.com/\tcb", "",
])
def test_hostile_redirect_uris_are_refused(server, uri):
    url, _ = server
    # The operator's route: the same rules as registration, without its per-IP limit.
    answer = httpx.post(f"{url}/admin/oauth/clients", json={"redirect_uris": [uri], "client_name": "x"}, trust_env=False,
                        headers=service_headers())
    assert answer.status_code == 400 and answer.json()["error_code"] == "validation_failed", answer.text


def test_dynamic_registration_is_limited_per_ip_and_can_be_closed(server, tmp_path):
    url, _ = server
    statuses = [httpx.post(f"{url}/oauth/clients/register", trust_env=False,
                           json={"redirect_uris": ["http://127.0.0.1:33418/callback"], "token_endpoint_auth_method": "none",
                                 "client_name": "MCP client"}).status_code for _ in range(7)]
    assert statuses[0] == 201 and 429 in statuses, statuses
    first = admin(url).oauth.list_clients().clients
    assert any(c.registration_type == "dynamic" and c.client_type == "public" for c in first)

    process, closed, log = _start_server(tmp_path, env={**ENV, "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "false"})
    try:
        refused = httpx.post(f"{closed}/oauth/clients/register", json={"redirect_uris": ["https://a.example/cb"]}, trust_env=False)
        assert refused.status_code == 403 and refused.json()["error_code"] == "oauth_dynamic_client_registration_disabled"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_every_route_is_closed_while_the_server_is_off(tmp_path):
    process, url, log = _start_server(tmp_path, env={"GOTRUE_JWT_SECRET": SECRET})
    try:
        some = str(uuid.uuid4())
        for method, path in [("GET", "/admin/oauth/clients"), ("POST", "/admin/oauth/clients"), ("GET", f"/admin/oauth/clients/{some}"),
                             ("PUT", f"/admin/oauth/clients/{some}"), ("DELETE", f"/admin/oauth/clients/{some}"),
                             ("POST", f"/admin/oauth/clients/{some}/regenerate_secret"), ("POST", "/oauth/clients/register")]:
            answer = httpx.request(method, f"{url}{path}", json={"redirect_uris": ["https://a.example/cb"]}, headers=service_headers(),
                                   trust_env=False)
            assert answer.status_code == 404 and answer.json()["error_code"] == "feature_disabled", (path, answer.text)
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_the_cli_manages_clients_with_the_server_stopped(tmp_path):
    """`latchkey oauth-clients`: the same use case as the admin API, on the data folder."""
    import json
    import os
    import subprocess

    from conftest import _find_binary

    def cli(*args, enabled=True):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GOTRUE_", "LATCHKEY_"))}
        if enabled:
            env["GOTRUE_OAUTH_SERVER_ENABLED"] = "true"
        return subprocess.run([str(_find_binary()), "oauth-clients", *args, "--data-dir", str(tmp_path)], capture_output=True,
                              text=True, timeout=60, env=env)

    added = cli("add", "--redirect-uri", "https://app.example.com/cb", "--name", "Example", "--json")
    assert added.returncode == 0, added.stderr
    client = json.loads(added.stdout)
    assert client["client_type"] == "confidential" and client["client_secret"]
    public = cli("add", "--redirect-uri", "myapp://cb", "--public")
    assert public.returncode == 0 and "Client secret" not in public.stdout and "(public)" in public.stdout
    listed = cli("list")
    assert client["client_id"] in listed.stdout and client["client_secret"] not in listed.stdout
    rotated = cli("rotate-secret", client["client_id"])
    assert rotated.returncode == 0 and "shown this once" in rotated.stdout and client["client_secret"] not in rotated.stdout
    refused = cli("add", "--redirect-uri", "javascript:alert(1)//x")
    assert refused.returncode != 0 and "redirect_uri" in refused.stderr
    assert cli("remove", client["client_id"]).returncode == 0
    assert client["client_id"] not in cli("list").stdout
    missing = cli("remove", client["client_id"])
    assert missing.returncode != 0 and "not found" in missing.stderr
    off = cli("list", enabled=False)
    assert off.returncode != 0 and "disabled" in off.stderr
