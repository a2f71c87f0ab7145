"""The hosted pages and the console as plain HTML forms, over real HTTP with a cookie jar (what a
browser without JavaScript does): a reset, a magic link, an email change, the same page for known
and unknown addresses, and the console's actions — each checked by what the API then says."""

from __future__ import annotations

import re
import urllib.parse
import uuid

import httpx
import pytest

from hosted_app import PKCE, app, create_user, latest_code, server  # noqa: F401 - app and server are fixtures
from test_supabase_admin import service_headers


class Browser:
    """A cookie jar that reads each page's CSRF token and posts its forms with the app's flow."""

    def __init__(self, server: str, app, flow: PKCE):
        self.server = server
        self.app = app
        self.flow = flow
        self.client = httpx.Client(trust_env=False, follow_redirects=False, timeout=20)
        self.csrf = ""

    def open(self, page: str) -> httpx.Response:
        answer = self.client.get(self.flow.page(self.server, self.app, page))
        self.read(answer)
        return answer

    def read(self, answer: httpx.Response) -> None:
        found = re.search(r'name="csrf" value="([^"]+)"', answer.text)
        if found:
            self.csrf = found.group(1)

    def post(self, path: str, **fields) -> httpx.Response:
        data = {"csrf": self.csrf, "redirect_to": self.app.callback, "code_challenge": self.flow.challenge,
                "code_challenge_method": "s256", **fields}
        answer = self.client.post(f"{self.server}/ui/{path}", data=data)
        self.read(answer)
        return answer

    def finish(self, answer: httpx.Response) -> dict:
        """From a sign-in's answer to the session the app gets: through the page that offers a
        passkey (passkeys are on here), then the code's exchange."""
        assert answer.status_code == 303, answer.text
        if answer.headers["location"] == "continue":
            self.read(self.client.get(f"{self.server}/ui/continue"))
            answer = self.post("continue")
            assert answer.status_code == 303, answer.text
        target = urllib.parse.urlparse(answer.headers["location"])
        assert f"{target.scheme}://{target.netloc}{target.path}" == self.app.callback
        code = urllib.parse.parse_qs(target.query)["code"][0]
        exchanged = self.flow.exchange(self.server, code)
        assert exchanged.status_code == 200, exchanged.text
        return exchanged.json()


def test_known_and_unknown_addresses_get_the_same_page(server, app):
    email = f"known-{uuid.uuid4().hex[:8]}@example.com"
    create_user(server, email, "correct horse battery staple " + uuid.uuid4().hex[:6])
    pages = []
    flow = PKCE()
    for address in [email, f"unknown-{uuid.uuid4().hex[:8]}@example.com"]:
        browser = Browser(server, app, flow)
        browser.open("sign-in")
        answer = browser.post("code", email=address)
        assert answer.status_code == 200
        text = re.sub(r'name="csrf" value="[^"]+"', "", answer.text)
        text = re.sub(r'nonce="[^"]+"', "", text)
        pages.append(text.replace(address, "ADDRESS"))
    assert pages[0] == pages[1]


def test_a_forgotten_password_is_reset_on_the_pages(server, app):
    email = f"reset-{uuid.uuid4().hex[:8]}@example.com"
    create_user(server, email, "correct horse battery staple " + uuid.uuid4().hex[:6])
    browser = Browser(server, app, PKCE())
    browser.open("reset")
    assert browser.post("reset", email=email).status_code == 200
    code, _ = latest_code(server, email)
    # A weak password is refused before the code is spent on it.
    weak = browser.post("reset-code", email=email, code=code, password="short")
    assert weak.status_code == 422 and "stronger password" in weak.text
    new_password = "a brand new passphrase " + uuid.uuid4().hex[:6]
    session = browser.finish(browser.post("reset-code", email=email, code=code, password=new_password))
    assert session["user"]["email"] == email
    signed_in = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": new_password},
                           trust_env=False)
    assert signed_in.status_code == 200


def test_a_magic_link_comes_back_to_the_app_with_a_code(server, app):
    email = f"link-{uuid.uuid4().hex[:8]}@example.com"
    create_user(server, email, "correct horse battery staple " + uuid.uuid4().hex[:6])
    flow = PKCE()
    browser = Browser(server, app, flow)
    browser.open("sign-in")
    sent = browser.post("magic-link", email=email)
    assert sent.status_code == 200 and "Check your email" in sent.text
    message = httpx.get(f"{server}/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"},
                        trust_env=False).json()["messages"][0]
    link = re.search(r"(http://\S+/verify\?\S+)", message["text"]).group(1)
    page = browser.client.get(link)
    assert page.status_code == 200
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page.text))
    opened = browser.client.post(f"{server}/verify", data=fields)
    assert opened.status_code == 303
    code = urllib.parse.parse_qs(urllib.parse.urlparse(opened.headers["location"]).query)["code"][0]
    assert flow.exchange(server, code).json()["user"]["email"] == email


def test_an_email_change_is_confirmed_on_the_pages(server, app):
    email = f"old-{uuid.uuid4().hex[:8]}@example.com"
    new = f"new-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    session = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                         trust_env=False).json()
    changed = httpx.put(f"{server}/user", json={"email": new}, headers={"Authorization": f"Bearer {session['access_token']}"},
                        trust_env=False)
    assert changed.status_code == 200, changed.text
    browser = Browser(server, app, PKCE())
    browser.open("email-change")
    old_code, _ = latest_code(server, email)
    halfway = browser.post("email-change", email=email, code=old_code)
    assert halfway.status_code == 200 and "One more code" in halfway.text
    new_code, _ = latest_code(server, new)
    done = browser.finish(browser.post("email-change", email=new, code=new_code))
    assert done["user"]["email"] == new


def test_the_consoles_actions_reach_the_user(server, app):
    email = f"console-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    user_id = create_user(server, email, password)
    console = httpx.Client(trust_env=False, follow_redirects=False, timeout=20, base_url=f"{server}/ui/admin/")

    def csrf(answer):
        return re.search(r'name="csrf" value="([^"]+)"', answer.text).group(1)

    first = console.get("sign-in")
    assert 'class="error"' not in first.text  # no error box before anything went wrong
    token = csrf(first)
    signed = console.post("sign-in", data={"csrf": token, "token": service_headers()["Authorization"][7:]})
    assert signed.status_code == 303 and "lk_admin" in signed.headers["set-cookie"]

    def act(action, **fields):
        page = console.get("user", params={"id": user_id})
        assert page.status_code == 200, page.text
        answer = console.post(action, data={"csrf": csrf(page), "id": user_id, **fields})
        assert answer.status_code == 303, answer.text
        return console.get(answer.headers["location"])

    def user():
        return httpx.get(f"{server}/admin/users/{user_id}", headers=service_headers(), trust_env=False).json()

    assert "Banned for 24 hours" in act("ban").text and user()["banned_until"]
    refused = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                         trust_env=False)
    assert refused.status_code == 400 and refused.json()["error_code"] == "user_banned"
    assert "The ban is lifted" in act("unban").text and not user().get("banned_until")

    # A factor and a passkey the user had, removed by the operator.
    session = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                         trust_env=False).json()
    bearer = {"Authorization": f"Bearer {session['access_token']}"}
    factor = httpx.post(f"{server}/factors", json={"factor_type": "totp"}, headers=bearer, trust_env=False).json()
    from webauthn_authenticator import Authenticator
    options = httpx.post(f"{server}/passkeys/registration/options", json={}, headers=bearer, trust_env=False).json()
    port = urllib.parse.urlparse(server).port
    device = Authenticator(rp_id="localhost", origin=f"http://localhost:{port}")
    made = httpx.post(f"{server}/passkeys/registration/verify", headers=bearer, trust_env=False,
                      json={"challenge_id": options["challenge_id"], "credential": device.create(options)})
    assert made.status_code == 200, made.text
    assert "The factor is removed" in act("remove-factor", factor=factor["id"]).text
    # A reset takes every factor, and signs the user out everywhere (#39).
    for name in ["one", "two"]:
        assert httpx.post(f"{server}/factors", json={"factor_type": "totp", "friendly_name": name}, headers=bearer,
                          trust_env=False).status_code == 200
    assert "Every second factor is removed" in act("reset-factors").text
    assert httpx.get(f"{server}/user", headers=bearer, trust_env=False).status_code in (401, 403)
    session = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                         trust_env=False).json()
    bearer = {"Authorization": f"Bearer {session['access_token']}"}
    assert "The passkey is removed" in act("remove-passkey", passkey=made.json()["id"]).text
    assert not user().get("factors")
    assert httpx.get(f"{server}/passkeys", headers=bearer, trust_env=False).json() == []

    # A console action with another operator's page token, or none, does nothing.
    forged = console.post("ban", data={"csrf": "forged", "id": user_id})
    assert forged.status_code == 403 and not user().get("banned_until")
    events = httpx.get(f"{server}/admin/audit", params={"user_id": user_id}, headers=service_headers(), trust_env=False).json()
    by_operator = {e["payload"]["action"] for e in events if e["payload"]["actor_username"] == "service_role"}
    assert {"user_modified", "factor_unenrolled", "passkey_deleted"} <= by_operator, by_operator

    # Signed out of the console, its pages ask for a token again.
    page = console.get("users")
    console.post("sign-out", data={"csrf": csrf(page)})
    console.cookies.clear()
    assert console.get("users").headers["location"] == "sign-in"


@pytest.mark.parametrize("path", ["users", "user?id=x", "sign-out-user", "delete"])
def test_the_console_is_closed_without_a_session(server, path):
    answer = httpx.get(f"{server}/ui/admin/{path}", trust_env=False, follow_redirects=False)
    assert answer.status_code in (303, 403, 405), answer.status_code


def test_the_console_resends_a_confirmation(server):
    email = f"unconfirmed-{uuid.uuid4().hex[:8]}@example.com"
    made = httpx.post(f"{server}/admin/users", json={"email": email, "password": "correct horse battery staple x1"},
                      headers=service_headers(), trust_env=False)
    assert made.status_code == 200, made.text
    console = httpx.Client(trust_env=False, follow_redirects=False, timeout=20, base_url=f"{server}/ui/admin/")
    token = re.search(r'name="csrf" value="([^"]+)"', console.get("sign-in").text).group(1)
    console.post("sign-in", data={"csrf": token, "token": service_headers()["Authorization"][7:]})
    page = console.get("user", params={"id": made.json()["id"]})
    assert "Resend the confirmation" in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    answer = console.post("resend", data={"csrf": csrf, "id": made.json()["id"]})
    assert answer.status_code == 303 and "done=resent" in answer.headers["location"]
    _, ids = latest_code(server, email)
    assert len(ids) == 1
