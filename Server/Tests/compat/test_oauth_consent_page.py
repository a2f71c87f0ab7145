"""Latchkey's own consent page (#40, `/ui/consent`), used when the app names none: the browser
comes from a client's `/oauth/authorize`, signs in on the hosted pages, is asked, and goes back to
the client with a code (or a denial). Driven as a browser drives it, cookies and forms included,
then in Chromium."""

from __future__ import annotations

import re
import urllib.parse
import uuid

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from test_cli import serving

REDIRECT = "https://rp.example.com/callback"
PASSWORD = "correct horse battery staple"
ENV = {
    "LATCHKEY_PROFILE": "strict",
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_OAUTH_SERVER_ENABLED": "true",
    "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
    "GOTRUE_RATE_LIMIT_VERIFY": "1000",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("consent-page"), env=ENV) as url:
        yield url


def client_and_user(server: str) -> tuple[dict, str]:
    client = httpx.post(f"{server}/oauth/clients/register", trust_env=False, json={
        "client_name": "Photo Printer", "client_uri": "https://rp.example.com", "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "client_secret_basic"}).json()
    email = f"page-{uuid.uuid4().hex[:8]}@example.com"
    assert httpx.post(f"{server}/signup", json={"email": email, "password": PASSWORD}, trust_env=False).status_code == 200
    return client, email


def authorize_url(server: str, client: dict, verifier: str, scope: str = "openid email profile") -> str:
    return f"{server}/oauth/authorize?" + urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": REDIRECT, "response_type": "code", "scope": scope, "state": "st-1",
        "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256", "nonce": "n"})


def hidden(page: str) -> dict:
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))


def follow(browser: httpx.Client, answer: httpx.Response) -> httpx.Response:
    assert answer.status_code in (302, 303), answer.text
    return browser.get(urllib.parse.urljoin(str(answer.url), answer.headers["location"]))


def sign_in_and_ask(server: str, browser: httpx.Client, url: str, email: str) -> httpx.Response:
    """From the client's link to the consent page: the sign-in form on the way."""
    to_consent = browser.get(url)
    assert to_consent.headers["location"].startswith(f"{server}/ui/consent?authorization_id=")
    to_sign_in = follow(browser, to_consent)
    assert to_sign_in.status_code == 303 and to_sign_in.headers["location"].startswith("sign-in?")
    form = follow(browser, to_sign_in)
    assert form.status_code == 200 and "Sign in" in form.text
    fields = {k: v for k, v in hidden(form.text).items()}
    signed_in = browser.post(f"{server}/ui/password", data={**fields, "email": email, "password": PASSWORD})
    back = follow(browser, signed_in)  # /ui/consent?authorization_id=…&code=… : the sign-in's code exchanged
    page = follow(browser, back)
    assert page.status_code == 200, page.text
    return page


def test_the_user_signs_in_is_asked_and_the_client_gets_its_code(server):
    client, email = client_and_user(server)
    verifier = generate_token(48)
    with httpx.Client(trust_env=False, follow_redirects=False) as browser:
        page = sign_in_and_ask(server, browser, authorize_url(server, client, verifier), email)
        assert "Photo Printer" in page.text and email in page.text and "See your email address" in page.text
        assert "rp.example.com" in page.headers["content-security-policy"]
        answer = browser.post(f"{server}/ui/consent", data={**hidden(page.text), "action": "approve"})
    assert answer.status_code == 303
    callback = urllib.parse.urlsplit(answer.headers["location"])
    query = urllib.parse.parse_qs(callback.query)
    assert f"{callback.scheme}://{callback.netloc}{callback.path}" == REDIRECT and query["state"] == ["st-1"]
    tokens = httpx.post(f"{server}/oauth/token", trust_env=False, auth=(client["client_id"], client["client_secret"]), data={
        "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": REDIRECT, "code_verifier": verifier})
    assert tokens.status_code == 200 and tokens.json()["scope"] == "openid email profile" and tokens.json()["id_token"]

    # Asked again for less: approved straight away after the sign-in, no question.
    with httpx.Client(trust_env=False, follow_redirects=False) as browser:
        to_consent = browser.get(authorize_url(server, client, generate_token(48), scope="email"))
        to_sign_in = follow(browser, to_consent)
        form = follow(browser, to_sign_in)
        signed_in = browser.post(f"{server}/ui/password", data={**hidden(form.text), "email": email, "password": PASSWORD})
        back = follow(browser, signed_in)
        assert back.status_code == 303
        straight = follow(browser, back)
        assert straight.status_code == 303 and straight.headers["location"].startswith(REDIRECT + "?code=")


def test_denying_sends_access_denied_and_forms_need_the_pages_cookie(server):
    client, email = client_and_user(server)
    with httpx.Client(trust_env=False, follow_redirects=False) as browser:
        page = sign_in_and_ask(server, browser, authorize_url(server, client, generate_token(48)), email)
        fields = hidden(page.text)
        # Another browser (no cookie) or a forged CSRF token: refused, nothing decided.
        assert httpx.post(f"{server}/ui/consent", data={**fields, "action": "approve"}, trust_env=False).status_code == 403
        forged = browser.post(f"{server}/ui/consent", data={**fields, "csrf": "x", "action": "approve"})
        assert forged.status_code == 403
        denied = browser.post(f"{server}/ui/consent", data={**fields, "action": "deny"})
    assert denied.status_code == 303 and "error=access_denied" in denied.headers["location"]
    assert "state=st-1" in denied.headers["location"]


@pytest.mark.parametrize("query", ["authorization_id=short", "authorization_id=" + "A" * 32 + "&code=forged", ""])
def test_a_bad_or_foreign_request_is_a_message_page(server, query):
    answer = httpx.get(f"{server}/ui/consent?{query}", trust_env=False, follow_redirects=False)
    assert answer.status_code == 400 and "expired" in answer.text


def test_the_sign_in_form_will_not_send_a_code_anywhere_but_one_consent_request(server):
    # The consent page's exception to the allow list is that page, for one well-formed request.
    for target in [f"{server}/ui/consent?authorization_id=" + "A" * 31, f"{server}/ui/consent?authorization_id=" + "A" * 32 + "&x=1",
                   f"{server}/ui/consent-other?authorization_id=" + "A" * 32]:
        answer = httpx.get(f"{server}/ui/sign-in", trust_env=False, params={
            "redirect_to": target, "code_challenge": "c" * 43, "code_challenge_method": "s256"})
        assert answer.status_code == 400 and "allow list" in answer.text, target
