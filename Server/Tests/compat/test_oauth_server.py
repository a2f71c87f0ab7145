"""Latchkey as an OAuth 2.1 / OpenID Connect server (#40) over real HTTP, with Authlib (a standard
client library from PyPI) as the relying party: discovery, the authorization request, the app's
consent step (this test plays the app's consent page, as GoTrue's model has it: it reads the
request with the user's token and approves it), the code exchange with PKCE, the id_token verified
against the published keys, userinfo, refresh with rotation. Then what an attacker tries: codes
replayed, raced, stolen by another client or presented without the verifier; requests with a
redirect URI not registered; a client's token on the user's own API; a revoked grant."""

from __future__ import annotations

import concurrent.futures
import urllib.parse
import uuid

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from test_cli import serving

SITE = "http://app.test"
REDIRECT = "https://rp.example.com/callback"
ENV = {
    "LATCHKEY_PROFILE": "strict",
    "GOTRUE_SITE_URL": SITE,
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_OAUTH_SERVER_ENABLED": "true",
    "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
    "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH": "/oauth/consent",
    "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "10000",
    "GOTRUE_RATE_LIMIT_O_AUTH_DYNAMIC_CLIENT_REGISTER": "100",
    "LATCHKEY_RATE_LIMIT_SIGNUPS": "1000",
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
}
PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("oauth-server"), env=ENV) as url:
        yield url


def get(url: str, **kwargs) -> httpx.Response:
    return httpx.get(url, trust_env=False, **kwargs)


def post(url: str, **kwargs) -> httpx.Response:
    return httpx.post(url, trust_env=False, **kwargs)


def register(url: str, method: str = "client_secret_basic", redirects: list[str] | None = None) -> dict:
    answer = post(f"{url}/oauth/clients/register", json={
        "client_name": f"RP {uuid.uuid4().hex[:6]}", "redirect_uris": redirects or [REDIRECT],
        "token_endpoint_auth_method": method})
    assert answer.status_code == 201, answer.text
    return answer.json()


def user(url: str, **metadata) -> tuple[str, str]:
    """A new user's access token and address."""
    email = f"u-{uuid.uuid4().hex[:10]}@example.com"
    answer = post(f"{url}/signup", json={"email": email, "password": PASSWORD, "data": metadata})
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"], email


def consent_page(location: str) -> str:
    """The app's consent page as the browser reaches it: the authorization id from the redirect."""
    parsed = urllib.parse.urlsplit(location)
    assert f"{parsed.scheme}://{parsed.netloc}{parsed.path}" == f"{SITE}/oauth/consent", location
    return urllib.parse.parse_qs(parsed.query)["authorization_id"][0]


def approve(url: str, authorize_url: str, token: str, action: str = "approve") -> str:
    """The browser opens the authorization URL; the app's page reads the request with the user's
    token and answers it: the URL the browser is sent back to."""
    first = get(authorize_url)
    assert first.status_code == 302, first.text
    authorization_id = consent_page(first.headers["location"])
    headers = {"Authorization": f"Bearer {token}"}
    details = get(f"{url}/oauth/authorizations/{authorization_id}", headers=headers)
    assert details.status_code == 200, details.text
    if "redirect_url" in details.json():  # consent remembered
        return details.json()["redirect_url"]
    answer = post(f"{url}/oauth/authorizations/{authorization_id}/consent", json={"action": action}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()["redirect_url"]


def discovery(url: str) -> dict:
    answer = get(f"{url}/.well-known/openid-configuration")
    assert answer.status_code == 200, answer.text
    return answer.json()


def authlib_session(client: dict, scope: str) -> OAuth2Session:
    method = client["token_endpoint_auth_method"]
    return OAuth2Session(
        client["client_id"], client.get("client_secret"), scope=scope, redirect_uri=REDIRECT, code_challenge_method="S256",
        token_endpoint_auth_method=method)


def test_authlib_signs_a_user_in_with_the_code_flow_pkce_and_openid(server):
    meta = discovery(server)
    assert meta["issuer"] and meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["registration_endpoint"] == f"{server}/oauth/clients/register"
    assert get(f"{server}/.well-known/oauth-authorization-server").json() == meta
    client = register(server)
    token, email = user(server, name="Ada Lovelace", avatar_url="https://example.com/ada.png")
    session = authlib_session(client, "openid email profile")
    verifier, nonce = generate_token(48), generate_token(20)
    authorize_url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce)

    callback = approve(server, authorize_url, token)
    assert callback.startswith(REDIRECT + "?") and f"state={state}" in callback
    tokens = session.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    assert tokens["token_type"].lower() == "bearer" and tokens["scope"] == "openid email profile"

    # The id_token: signed with a published key, for this client, with the nonce and the user's claims.
    keys = JsonWebKey.import_key_set(get(meta["jwks_uri"]).json())
    claims = JsonWebToken(meta["id_token_signing_alg_values_supported"]).decode(
        tokens["id_token"], keys, claims_options={
            "iss": {"essential": True, "value": meta["issuer"]}, "aud": {"essential": True, "value": client["client_id"]},
            "nonce": {"essential": True, "value": nonce}, "sub": {"essential": True}, "auth_time": {"essential": True}})
    claims.validate()
    assert claims["email"] == email and claims["email_verified"] is True and claims["name"] == "Ada Lovelace"
    assert claims["picture"] == "https://example.com/ada.png" and claims["acr"] == "aal1" and claims["amr"] == ["password"]

    # The access token names the client and the scopes; userinfo answers what they open.
    access = JsonWebToken(meta["id_token_signing_alg_values_supported"]).decode(tokens["access_token"], keys)
    assert access["client_id"] == client["client_id"] and access["scope"] == "openid email profile"
    info = session.get(meta["userinfo_endpoint"]).json()
    assert info["sub"] == claims["sub"] and info["email"] == email and info["user_metadata"]["name"] == "Ada Lovelace"
    assert "phone" not in info

    # Refresh through Authlib: rotated; a token two rotations old is reuse, and ends the session.
    old_refresh = tokens["refresh_token"]
    renewed = session.refresh_token(meta["token_endpoint"])
    assert renewed["refresh_token"] != old_refresh and renewed["scope"] == "openid email profile"
    assert session.get(meta["userinfo_endpoint"]).status_code == 200
    session.refresh_token(meta["token_endpoint"])
    replay = post(meta["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": old_refresh},
                  auth=(client["client_id"], client["client_secret"]))
    assert replay.status_code == 400, replay.text
    assert session.get(meta["userinfo_endpoint"]).status_code == 403


def test_a_public_client_needs_pkce_and_no_secret(server):
    meta = discovery(server)
    client = register(server, method="none")
    assert "client_secret" not in client or not client["client_secret"]
    token, _ = user(server)
    session = authlib_session(client, "email")
    verifier = generate_token(48)
    authorize_url, _ = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier)
    callback = approve(server, authorize_url, token)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query)["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": client["client_id"]}
    # Without the verifier, a wrong one, or with a secret it does not have: refused, the code kept.
    assert post(meta["token_endpoint"], data=exchange).status_code == 400
    assert post(meta["token_endpoint"], data={**exchange, "code_verifier": generate_token(48)}).json()["error"] == "invalid_grant"
    assert post(meta["token_endpoint"], data={**exchange, "code_verifier": verifier, "client_secret": "x"}).status_code == 401
    tokens = session.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    assert "id_token" not in tokens and tokens["scope"] == "email"


def code_for(server: str, client: dict, token: str, scope: str = "openid email") -> tuple[str, str]:
    verifier = generate_token(48)
    query = urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code", "scope": scope, "state": "s1",
        "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256"})
    callback = approve(server, f"{server}/oauth/authorize?{query}", token)
    return urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query)["code"][0], verifier


def exchange(server: str, client: dict, code: str, verifier: str) -> httpx.Response:
    return post(f"{server}/oauth/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier},
        auth=(client["client_id"], client["client_secret"]))


def test_a_code_is_spent_once_and_a_replay_ends_what_it_gave(server):
    client = register(server)
    token, _ = user(server)
    code, verifier = code_for(server, client, token)
    first = exchange(server, client, code, verifier)
    assert first.status_code == 200, first.text
    again = exchange(server, client, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # The session the code made is over: its refresh token and its access token stop.
    refresh = post(f"{server}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"]},
                   auth=(client["client_id"], client["client_secret"]))
    assert refresh.status_code == 400
    assert get(f"{server}/oauth/userinfo", headers={"Authorization": f"Bearer {first.json()['access_token']}"}).status_code == 403


def test_racing_exchanges_of_one_code_give_one_session(server):
    client = register(server)
    token, _ = user(server)
    code, verifier = code_for(server, client, token)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: exchange(server, client, code, verifier), range(8)))
    assert sorted(a.status_code for a in answers).count(200) == 1, [a.text for a in answers]


def test_a_code_is_the_clients_it_was_issued_to(server):
    client, thief = register(server), register(server)
    token, _ = user(server)
    code, verifier = code_for(server, client, token)
    stolen = exchange(server, thief, code, verifier)
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
    wrong_secret = post(f"{server}/oauth/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier},
        auth=(client["client_id"], thief["client_secret"]))
    assert wrong_secret.status_code == 401 and wrong_secret.json()["error"] == "invalid_client"
    # Posted credentials for a client registered for Basic: refused (one method per client).
    posted = post(f"{server}/oauth/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
        "client_id": client["client_id"], "client_secret": client["client_secret"]})
    assert posted.status_code == 401
    assert exchange(server, client, code, verifier).status_code == 200


@pytest.mark.parametrize("change, expected", [
    ({"client_id": "not-a-uuid"}, 400),
    ({"client_id": str(uuid.uuid4())}, 400),
    ({"redirect_uri": "https://rp.example.com/callback/../evil"}, 400),
    ({"redirect_uri": "https://rp.example.com/callback?x=1"}, 400),
    ({"redirect_uri": "https://RP.example.com/callback"}, 400),
    ({"redirect_uri": "https://rp.example.com/callback#"}, 400),
    ({"redirect_uri": None}, 400),
])
def test_an_unknown_client_or_redirect_is_answered_here_never_redirected(server, change, expected):
    client = register(server)
    params = {"client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code",
              "code_challenge": "x" * 43, "code_challenge_method": "S256", "state": "s"}
    params.update(change)
    answer = get(f"{server}/oauth/authorize", params={k: v for k, v in params.items() if v is not None})
    assert answer.status_code == expected and "location" not in answer.headers, answer.text


@pytest.mark.parametrize("change, error", [
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"scope": "openid admin"}, "invalid_scope"),
    ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"code_challenge": "short"}, "invalid_request"),
    ({"code_challenge": "x" * 42 + "!"}, "invalid_request"),
    ({"resource": "https://api.example.com/#x"}, "invalid_target"),
    ({"resource": "relative/path"}, "invalid_target"),
    ({"state": "s" * 3000}, "invalid_request"),
])
def test_other_faults_go_back_to_the_client_with_its_state(server, change, error):
    client = register(server)
    params = {"client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid",
              "code_challenge": "x" * 43, "code_challenge_method": "S256", "state": "keep-me"}
    params.update(change)
    answer = get(f"{server}/oauth/authorize", params={k: v for k, v in params.items() if v is not None})
    assert answer.status_code == 302, answer.text
    location = urllib.parse.urlsplit(answer.headers["location"])
    query = urllib.parse.parse_qs(location.query)
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT and query["error"] == [error]
    if len(params.get("state") or "") < 3000:
        assert query["state"] == ["keep-me"]


def test_only_the_user_who_opened_a_request_sees_or_answers_it(server):
    client = register(server)
    alice, _ = user(server)
    mallory, _ = user(server)
    verifier = generate_token(48)
    query = urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code", "scope": "email",
        "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256"})
    authorization_id = consent_page(get(f"{server}/oauth/authorize?{query}").headers["location"])
    path = f"{server}/oauth/authorizations/{authorization_id}"
    assert get(path, headers={"Authorization": f"Bearer {alice}"}).status_code == 200
    assert get(path, headers={"Authorization": f"Bearer {mallory}"}).status_code == 404
    assert post(f"{path}/consent", json={"action": "approve"}, headers={"Authorization": f"Bearer {mallory}"}).status_code == 404
    assert get(path).status_code == 401
    # From a site that is not the app: refused before anything is read.
    evil = get(path, headers={"Authorization": f"Bearer {alice}", "Origin": "https://evil.example"})
    assert evil.status_code == 400
    denied = post(f"{path}/consent", json={"action": "deny"}, headers={"Authorization": f"Bearer {alice}"})
    assert "error=access_denied" in denied.json()["redirect_url"]
    assert post(f"{path}/consent", json={"action": "approve"}, headers={"Authorization": f"Bearer {alice}"}).status_code == 400


def test_a_clients_token_reads_what_its_scopes_open_and_changes_nothing(server):
    client = register(server)
    token, email = user(server, name="Grace")
    code, verifier = code_for(server, client, token, scope="openid")
    access = exchange(server, client, code, verifier).json()["access_token"]
    headers = {"Authorization": f"Bearer {access}"}
    me = get(f"{server}/user", headers=headers)
    assert me.status_code == 200 and me.json()["email"] == "" and me.json()["user_metadata"] == {}
    assert "identities" not in me.json() or not me.json()["identities"]
    for method, path, body in [("PUT", "/user", {"password": "another long passphrase"}), ("POST", "/factors", {"factor_type": "totp"}),
                               ("GET", "/user/oauth/grants", None), ("POST", "/recovery-codes", {})]:
        answer = httpx.request(method, f"{server}{path}", json=body, headers=headers, trust_env=False)
        assert answer.status_code == 403 and answer.headers["x-sb-error-code"] == "insufficient_scope", (path, answer.text)
    # Its own sign-out ends its session only, never the user's others.
    assert post(f"{server}/logout", headers=headers).status_code == 204
    assert get(f"{server}/user", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_remembered_consent_is_listed_and_revoking_it_ends_the_clients_sessions(server):
    client = register(server)
    token, _ = user(server)
    headers = {"Authorization": f"Bearer {token}"}
    code, verifier = code_for(server, client, token, scope="openid email")
    tokens = exchange(server, client, code, verifier).json()
    # Asked again for what was granted: approved at once, no consent step.
    second_code, second_verifier = code_for(server, client, token, scope="email")
    assert exchange(server, client, second_code, second_verifier).status_code == 200
    grants = get(f"{server}/user/oauth/grants", headers=headers).json()
    assert [g["client"]["id"] for g in grants] == [client["client_id"]] and grants[0]["scopes"] == ["openid", "email"]
    assert httpx.delete(f"{server}/user/oauth/grants", params={"client_id": client["client_id"]}, headers=headers,
                        trust_env=False).status_code == 204
    assert get(f"{server}/user/oauth/grants", headers=headers).json() == []
    refresh = post(f"{server}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                   auth=(client["client_id"], client["client_secret"]))
    assert refresh.status_code == 400
    assert get(f"{server}/oauth/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}).status_code == 403
    again = httpx.delete(f"{server}/user/oauth/grants", params={"client_id": client["client_id"]}, headers=headers, trust_env=False)
    assert again.status_code == 404 and again.headers["x-sb-error-code"] == "oauth_consent_not_found"


def test_an_app_refresh_token_is_not_a_clients_and_the_other_way_round(server):
    client = register(server)
    token_answer = post(f"{server}/token?grant_type=password", json={"email": user(server)[1], "password": PASSWORD}).json()
    own = post(f"{server}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": token_answer["refresh_token"]},
               auth=(client["client_id"], client["client_secret"]))
    assert own.status_code == 400 and own.json()["error"] == "invalid_grant"
    token, _ = user(server)
    code, verifier = code_for(server, client, token)
    theirs = exchange(server, client, code, verifier).json()
    at_token = post(f"{server}/token?grant_type=refresh_token", json={"refresh_token": theirs["refresh_token"]})
    assert at_token.status_code == 400


def test_an_mcp_client_registers_itself_and_gets_a_token_for_its_resource(server):
    """The MCP authorization profile: metadata (RFC 8414), dynamic registration of a public client,
    PKCE, and a resource indicator (RFC 8707) that becomes the access token's audience."""
    meta = get(f"{server}/.well-known/oauth-authorization-server").json()
    assert "S256" in meta["code_challenge_methods_supported"] and "none" in meta["token_endpoint_auth_methods_supported"]
    client = register(server, method="none")
    token, _ = user(server)
    resource = "https://mcp.example.com"
    verifier = generate_token(48)
    query = urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid",
        "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256", "resource": resource})
    callback = approve(server, f"{meta['authorization_endpoint']}?{query}", token)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query)["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
                "client_id": client["client_id"]}
    other = post(meta["token_endpoint"], data={**exchange, "resource": "https://other.example.com"})
    assert other.status_code == 400 and other.json()["error"] == "invalid_target"
    tokens = post(meta["token_endpoint"], data={**exchange, "resource": resource}).json()
    keys = JsonWebKey.import_key_set(get(meta["jwks_uri"]).json())
    claims = JsonWebToken(["ES256"]).decode(tokens["access_token"], keys)
    assert claims["aud"] == ["authenticated", resource] and claims["client_id"] == client["client_id"]
    # The resource server's check, and Latchkey's own: the token still reads userinfo.
    assert resource in claims["aud"]
    headers = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert get(f"{server}/oauth/userinfo", headers=headers).json()["sub"] == claims["sub"]
    # Never an operator's token.
    assert get(f"{server}/admin/users", headers=headers).status_code == 403
    # Refreshed, the token keeps its audience.
    renewed = post(meta["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                                                 "client_id": client["client_id"]}).json()
    assert JsonWebToken(["ES256"]).decode(renewed["access_token"], keys)["aud"] == ["authenticated", resource]
