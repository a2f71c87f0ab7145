"""Attack tests for issue 34, from the outside: each test plays an attacker against a real
`latchkey serve` (with the OpenID stand-in, a hook receiver or raw sockets) and checks the
defence the issue asks for — a second factor for linking and unlinking, the manual-linking
switch, OAuth state bound to the browser, hooks that cannot mint operators, provider error text
not forwarded, HTTP timeouts, a console sign-out that revokes, and hosted pages that do not tell
known from unknown addresses. Everything runs on 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import re
import select
import socket
import time
import uuid
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import _free_port
from hosted_app import PKCE, App, create_user
from oidc_standin import OIDCStandIn
from test_cli import serving as cli_serving
from test_hooks import Receiver, hook_env
from test_hooks import claims as token_claims
from test_hosted_forms import Browser as PagesBrowser
from test_id_token import nonce_pair
from test_logs import totp
from test_oauth_redirect import google_and_apple_env
from test_supabase_admin import SECRET, service_headers

GOOGLE_CLIENT = "g-web.apps.example"
APPLE_SERVICE = "com.example.web"
APP = "http://localhost:3000"  # GOTRUE_SITE_URL
PASSWORD = "correct horse battery staple " + uuid.uuid4().hex[:6]
COOKIE = "lk_oauth"
BASE_ENV = {
    "GOTRUE_JWT_SECRET": SECRET,
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_SMTP_MAX_FREQUENCY": "0",
    "GOTRUE_RATE_LIMIT_OTP": "1000",
    "GOTRUE_RATE_LIMIT_EMAIL_SENT": "1000",
    "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "1000",
    "GOTRUE_RATE_LIMIT_VERIFY": "1000",
    "GOTRUE_SITE_URL": APP,
}


# --- servers -----------------------------------------------------------------------------------


def serving(tmp, env, port=None):
    """The shared `serving` with ``BASE_ENV`` under `env`."""
    return cli_serving(tmp, {**BASE_ENV, **env}, port=port)


@dataclass
class Stack:
    url: str
    provider: OIDCStandIn

    @property
    def google(self):
        return self.provider.issuer("google")

    @property
    def apple(self):
        return self.provider.issuer("apple")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The redirect-flow server of test_oauth_redirect.py (Google, Apple, manual linking on), with
    a JWT secret for service tokens, auto-confirmed sign-ups and no send-frequency limit."""
    apple_key = ec.generate_private_key(ec.SECP256R1())
    with OIDCStandIn() as provider:
        provider.issuer("apple").check_secret = lambda client_id, secret: True
        env = google_and_apple_env(provider, apple_key)
        with serving(tmp_path_factory.mktemp("round2-oauth"), env) as url:
            yield Stack(url, provider)


# --- users, factors, mail ----------------------------------------------------------------------


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_email(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def sign_up(url: str, prefix: str = "u") -> tuple[str, dict]:
    """A password sign-up (auto-confirmed): the address and its aal1 session."""
    email = new_email(prefix)
    answer = httpx.post(f"{url}/signup", json={"email": email, "password": PASSWORD}, trust_env=False, timeout=20)
    assert answer.status_code == 200 and answer.json().get("access_token"), answer.text
    return email, answer.json()


def password_sign_in(url: str, email: str) -> dict:
    answer = httpx.post(f"{url}/token", params={"grant_type": "password"}, json={"email": email, "password": PASSWORD},
                        trust_env=False, timeout=20)
    assert answer.status_code == 200, answer.text
    return answer.json()


def enrol_totp(url: str, session: dict) -> dict:
    """Enrols and verifies a TOTP factor: the aal2 session the verification answers."""
    headers = bearer(session["access_token"])
    factor = httpx.post(f"{url}/factors", json={"factor_type": "totp"}, headers=headers, trust_env=False, timeout=10).json()
    challenge = httpx.post(f"{url}/factors/{factor['id']}/challenge", headers=headers, trust_env=False, timeout=10).json()
    verified = httpx.post(f"{url}/factors/{factor['id']}/verify", headers=headers, trust_env=False, timeout=10,
                          json={"challenge_id": challenge["id"], "code": totp(factor["totp"]["secret"])})
    assert verified.status_code == 200, verified.text
    assert token_claims(verified.json()["access_token"])["aal"] == "aal2"
    return verified.json()


def me(url: str, token: str) -> dict:
    answer = httpx.get(f"{url}/user", headers=bearer(token), trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def providers_of(url: str, email: str) -> list[str]:
    """The providers of `email`'s identities, read with a fresh password sign-in."""
    return sorted(i["provider"] for i in me(url, password_sign_in(url, email)["access_token"])["identities"])


def user_emails(url: str) -> set[str]:
    answer = httpx.get(f"{url}/admin/users", params={"per_page": 1000}, headers=service_headers(), trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    return {u.get("email") for u in answer.json()["users"]}


def mailbox(url: str, email: str) -> list[dict]:
    return httpx.get(f"{url}/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"},
                     trust_env=False, timeout=5).json().get("messages") or []


def mail_ids(url: str, email: str) -> set[str]:
    return {m["id"] for m in mailbox(url, email)}


def wait_for_subject(url: str, email: str, word: str, before: set[str], timeout: float = 10) -> None:
    """Waits (bounded) for a new dev-mailbox message to `email` (not in `before`) whose subject contains `word`."""
    deadline = time.monotonic() + timeout
    subjects: list[str] = []
    while time.monotonic() < deadline:
        subjects = [m.get("subject") or "" for m in mailbox(url, email) if m["id"] not in before]
        if any(word in s.lower() for s in subjects):
            return
        time.sleep(0.2)
    raise AssertionError(f"no new mail to {email} whose subject contains {word!r} within {timeout}s; new subjects: {subjects}")


# --- id tokens and the redirect flow -----------------------------------------------------------


def id_token_grant(stack: Stack, sub: str, email: str, token: str | None = None, link: bool = False,
                   url: str | None = None) -> httpx.Response:
    """`POST /token?grant_type=id_token` with a Google token for `sub`, optionally linking to the bearer."""
    raw, hashed = nonce_pair()
    google = stack.google
    body = {"provider": "google", "nonce": raw,
            "id_token": google.token(google.claims(sub, GOOGLE_CLIENT, email=email, email_verified=True, nonce=hashed))}
    if link:
        body["link_identity"] = True
    return httpx.post(f"{url or stack.url}/token", params={"grant_type": "id_token"}, json=body,
                      headers=bearer(token) if token else {}, trust_env=False, timeout=20)


def query_of(location: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query, keep_blank_values=True).items()}


def split_redirect(location: str) -> tuple[str, dict, dict]:
    parts = urlsplit(location)
    fragment = {k: v[0] for k, v in parse_qs(parts.fragment, keep_blank_values=True).items()}
    return f"{parts.scheme}://{parts.netloc}{parts.path}", query_of(location), fragment


class Browser:
    """One browser: keeps the cookies the server sets (by hand, so nothing depends on a cookie
    jar's rules for IP hosts) and sends them back; never follows redirects."""

    def __init__(self):
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []  # every Set-Cookie header seen, in order

    def request(self, method: str, url: str, headers: dict | None = None, **kwargs) -> httpx.Response:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        answer = httpx.request(method, url, headers=headers, trust_env=False, follow_redirects=False, timeout=20, **kwargs)
        for raw in answer.headers.get_list("set-cookie"):
            self.set_cookies.append(raw)
            name, _, rest = raw.partition("=")
            value = rest.split(";")[0]
            if re.search(r"(?i)max-age=0\b", raw) or not value:
                self.cookies.pop(name.strip(), None)
            else:
                self.cookies[name.strip()] = value
        return answer

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def authorize(self, url: str, provider: str = "google", redirect_to: str = "myapp://callback") -> dict:
        """`GET /authorize`: the provider's query (state, nonce, …)."""
        answer = self.get(f"{url}/authorize", params={"provider": provider, "redirect_to": redirect_to})
        assert answer.status_code == 302, answer.text
        return query_of(answer.headers["location"])

    def callback(self, url: str, **params) -> tuple[str, dict, dict]:
        """The provider sends this browser back to `GET /callback`: (target, query, fragment)."""
        answer = self.get(f"{url}/callback", params=params)
        assert answer.status_code == 303, answer.text
        return split_redirect(answer.headers["location"])


def google_claims(stack: Stack, email: str | None = None, sub: str | None = None) -> dict:
    sub = sub or uuid.uuid4().hex
    return stack.google.claims(sub, GOOGLE_CLIENT, email=email or f"g-{sub[:10]}@example.com", email_verified=True, name="Ada")


def start_link(stack: Stack, browser: Browser, token: str, provider: str = "google") -> dict:
    """Starts linking `provider` to the bearer's user and opens the URL in `browser`: the provider's
    query. The answer is a ticket URL on the server; opening it (no bearer) sets the browser's
    cookie and sends the browser on to the provider."""
    answer = httpx.get(f"{stack.url}/user/identities/authorize", headers=bearer(token), trust_env=False, timeout=10,
                       params={"provider": provider, "skip_http_redirect": "true", "redirect_to": "myapp://callback"})
    assert answer.status_code == 200, answer.text
    link = answer.json()["url"]
    assert link.startswith(f"{stack.url}/user/identities/continue?ticket="), link
    opened = browser.get(link)
    assert opened.status_code == 302 and COOKIE in browser.cookies, (opened.text, browser.set_cookies)
    return query_of(opened.headers["location"])


def refused_as_bad_state(target: str, query: dict, fragment: dict) -> None:
    assert query.get("error_code") == "bad_oauth_state", (target, query)
    assert target.rstrip("/") == APP, target
    assert "access_token" not in fragment and "code" not in query, fragment


# --- raw sockets -------------------------------------------------------------------------------


def connect(url: str) -> socket.socket:
    port = urlsplit(url).port
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.settimeout(5)
    return sock


def wait_closed(sock: socket.socket, within: float) -> tuple[bool, bytes]:
    """Reads until the server closes (EOF or reset) or `within` seconds pass: (closed, bytes read)."""
    deadline = time.monotonic() + within
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False, data
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return False, data
        except (ConnectionResetError, BrokenPipeError):
            return True, data
        if not chunk:
            return True, data
        data += chunk


def read_response(sock: socket.socket, timeout: float = 5) -> tuple[int, bytes]:
    """One HTTP/1.1 answer with a Content-Length: (status, raw bytes)."""
    deadline = time.monotonic() + timeout
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        assert chunk, "closed in the middle of an answer"
        body += chunk
    return int(head.split()[1]), data


def status_of(raw: bytes) -> int | None:
    found = re.match(rb"HTTP/1\.[01] (\d{3})", raw)
    return int(found.group(1)) if found else None


# ===============================================================================================
# 1. Second factor for linking and unlinking
# ===============================================================================================


def test_id_token_linking_needs_aal2_when_the_user_has_a_factor(stack):
    """Attack: a thief with only U's password (an aal1 session) links his own Google account to U
    with the id-token grant, to come back later without the second factor."""
    email, session = sign_up(stack.url, "mfa-link")
    aal2 = enrol_totp(stack.url, session)
    aal1 = password_sign_in(stack.url, email)
    assert token_claims(aal1["access_token"])["aal"] == "aal1"

    thief_sub, thief_email = uuid.uuid4().hex, new_email("thief")
    refused = id_token_grant(stack, thief_sub, thief_email, token=aal1["access_token"], link=True)
    assert refused.status_code == 401 and refused.json().get("error_code") == "insufficient_aal", refused.text
    # Nothing linked: the thief's Google account signs in as a new user, not U.
    plain = id_token_grant(stack, thief_sub, thief_email)
    assert plain.status_code == 200 and plain.json()["user"]["id"] != session["user"]["id"], plain.text
    assert providers_of(stack.url, email) == ["email"]

    # U herself at aal2 links, and is told by email.
    before = mail_ids(stack.url, email)
    linked = id_token_grant(stack, uuid.uuid4().hex, new_email("own"), token=aal2["access_token"], link=True)
    assert linked.status_code == 200 and linked.json()["user"]["id"] == session["user"]["id"], linked.text
    assert "google" in providers_of(stack.url, email)
    wait_for_subject(stack.url, email, "linked", before)


def test_starting_a_redirect_link_needs_aal2_when_the_user_has_a_factor(stack):
    """Attack: with an aal1 session the thief starts the redirect flow to link his provider account."""
    email, session = sign_up(stack.url, "mfa-start")
    enrol_totp(stack.url, session)
    aal1 = password_sign_in(stack.url, email)
    answer = httpx.get(f"{stack.url}/user/identities/authorize", headers=bearer(aal1["access_token"]), trust_env=False,
                       params={"provider": "google", "skip_http_redirect": "true"}, timeout=10)
    assert answer.status_code == 401 and answer.json().get("error_code") == "insufficient_aal", answer.text


def test_unlinking_needs_aal2_when_the_user_has_a_factor_and_is_notified(stack):
    """Attack: with an aal1 session the thief removes U's Google identity (U's way back in)."""
    email, session = sign_up(stack.url, "mfa-unlink")
    # Linked before any factor: allowed at aal1.
    assert id_token_grant(stack, uuid.uuid4().hex, new_email("g"), token=session["access_token"], link=True).status_code == 200
    aal2 = enrol_totp(stack.url, session)
    aal1 = password_sign_in(stack.url, email)
    google_id = next(i["identity_id"] for i in me(stack.url, aal1["access_token"])["identities"] if i["provider"] == "google")

    refused = httpx.delete(f"{stack.url}/user/identities/{google_id}", headers=bearer(aal1["access_token"]), trust_env=False)
    assert refused.status_code == 401 and refused.json().get("error_code") == "insufficient_aal", refused.text
    assert "google" in providers_of(stack.url, email)

    before = mail_ids(stack.url, email)
    removed = httpx.delete(f"{stack.url}/user/identities/{google_id}", headers=bearer(aal2["access_token"]), trust_env=False)
    assert removed.status_code == 200, removed.text
    assert providers_of(stack.url, email) == ["email"]
    wait_for_subject(stack.url, email, "removed", before)


def test_a_user_without_a_factor_links_and_unlinks_at_aal1_and_is_notified(stack):
    """Attack: a silent link or unlink — the owner must hear of every change to her ways in."""
    email, session = sign_up(stack.url, "nofactor")
    before = mail_ids(stack.url, email)
    linked = id_token_grant(stack, uuid.uuid4().hex, new_email("g"), token=session["access_token"], link=True)
    assert linked.status_code == 200, linked.text
    wait_for_subject(stack.url, email, "linked", before)
    google_id = next(i["identity_id"] for i in me(stack.url, session["access_token"])["identities"] if i["provider"] == "google")
    before = mail_ids(stack.url, email)
    removed = httpx.delete(f"{stack.url}/user/identities/{google_id}", headers=bearer(session["access_token"]), trust_env=False)
    assert removed.status_code == 200, removed.text
    wait_for_subject(stack.url, email, "removed", before)


def test_a_redirect_link_of_a_signed_out_session_is_not_finished(stack):
    """Attack: a link started on a session that was then signed out (a stolen, revoked token)
    still completes when the provider sends the browser back."""
    email, session = sign_up(stack.url, "logout-link")
    browser = Browser()
    params = start_link(stack, browser, session["access_token"])
    out = httpx.post(f"{stack.url}/logout", params={"scope": "local"}, headers=bearer(session["access_token"]), trust_env=False)
    assert out.status_code == 204, out.text
    _, query, fragment = browser.callback(stack.url, state=params["state"], code=stack.google.approve(params, google_claims(stack)))
    assert query.get("error_code") == "session_not_found", (query, fragment)
    assert "access_token" not in fragment
    assert providers_of(stack.url, email) == ["email"]


# ===============================================================================================
# 2. The manual-linking switch governs link_identity
# ===============================================================================================


@pytest.fixture(scope="module")
def no_manual_linking(tmp_path_factory):
    """Google by id token only, GOTRUE_SECURITY_MANUAL_LINKING_ENABLED left at its default (off)."""
    with OIDCStandIn() as provider:
        env = {"GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": GOOGLE_CLIENT,
               "LATCHKEY_EXTERNAL_GOOGLE_ISSUER": provider.issuer("google").url}
        with serving(tmp_path_factory.mktemp("round2-nolink"), env) as url:
            yield Stack(url, provider)


def test_link_identity_is_refused_when_manual_linking_is_off(no_manual_linking):
    """Attack: the operator turned manual linking off, but `link_identity:true` on the id-token
    grant still attaches an attacker-chosen Google account to a signed-in user."""
    stack = no_manual_linking
    email, session = sign_up(stack.url, "nolink")
    sub, google_email = uuid.uuid4().hex, new_email("g")
    refused = id_token_grant(stack, sub, google_email, token=session["access_token"], link=True)
    assert refused.status_code == 404 and refused.json().get("error_code") == "manual_linking_disabled", refused.text
    assert providers_of(stack.url, email) == ["email"]
    plain = id_token_grant(stack, sub, google_email)
    assert plain.status_code == 200 and plain.json()["user"]["id"] != session["user"]["id"], plain.text


# ===============================================================================================
# 3. The OAuth state is bound to the browser
# ===============================================================================================


def test_authorize_binds_the_flow_to_a_browser_cookie(stack):
    """Attack surface: without a browser-bound cookie any client holding a state can finish the
    flow. The cookie must be HttpOnly, SameSite=Lax, and kept across two flows in one browser."""
    browser = Browser()
    first = browser.authorize(stack.url)
    assert COOKIE in browser.cookies, f"no {COOKIE} cookie set by /authorize: {browser.set_cookies}"
    raw = next(c for c in browser.set_cookies if c.startswith(f"{COOKIE}="))
    attributes = {a.strip().lower() for a in raw.split(";")[1:]}
    assert {"httponly", "samesite=lax", "path=/"} <= attributes, raw
    max_age = next((a for a in attributes if a.startswith("max-age=")), "")
    assert max_age and int(max_age.split("=")[1]) > 0, raw
    value = browser.cookies[COOKIE]
    assert len(value) >= 16, raw

    second = browser.authorize(stack.url)
    assert browser.cookies.get(COOKIE) == value, "a second /authorize replaced the browser's cookie"
    # Both flows finish in this browser.
    for params in (first, second):
        _, query, fragment = browser.callback(stack.url, state=params["state"],
                                              code=stack.google.approve(params, google_claims(stack)))
        assert "access_token" in fragment, query


@pytest.mark.parametrize("victim_cookie", ["none", "its own"])
def test_login_csrf_a_state_finished_in_another_browser_is_refused(stack, victim_cookie):
    """Login CSRF: the attacker starts /authorize, approves with HIS Google account and makes the
    victim's browser (no cookie, or its own flow's cookie) open the callback — the victim would be
    signed in as the attacker."""
    attacker, victim = Browser(), Browser()
    params = attacker.authorize(stack.url)
    if victim_cookie == "its own":
        victim.authorize(stack.url)
    email = new_email("attacker-g")
    code = stack.google.approve(params, google_claims(stack, email=email))
    refused_as_bad_state(*victim.callback(stack.url, state=params["state"], code=code))
    assert email not in user_emails(stack.url)


def test_apples_form_post_needs_the_browser_cookie(stack):
    """Login CSRF through Apple's form_post: a cross-site POST to /callback without the browser's cookie."""
    apple = stack.apple
    browser = Browser()
    params = browser.authorize(stack.url, provider="apple")

    def claims():
        return apple.claims(f"001.{uuid.uuid4().hex}", APPLE_SERVICE, email=new_email("apple"), email_verified="true")

    stranger = httpx.post(f"{stack.url}/callback", data={"state": params["state"], "code": apple.approve(params, claims())},
                          trust_env=False, follow_redirects=False, timeout=20)
    assert stranger.status_code == 303, stranger.text
    refused_as_bad_state(*split_redirect(stranger.headers["location"]))
    # The browser that started it, with its cookie sent by hand: signed in.
    params = browser.authorize(stack.url, provider="apple")
    assert COOKIE in browser.cookies, browser.set_cookies
    own = httpx.post(f"{stack.url}/callback", data={"state": params["state"], "code": apple.approve(params, claims())},
                     headers={"Cookie": f"{COOKIE}={browser.cookies[COOKIE]}"}, trust_env=False, follow_redirects=False,
                     timeout=20)
    assert own.status_code == 303 and "access_token" in split_redirect(own.headers["location"])[2], own.headers


def test_a_link_starts_with_a_single_use_ticket_on_the_server(stack):
    """Attack surface: the link URL carries the state to the provider directly, so whoever gets it
    (the bearer's client is not the browser) can finish it. It must be a ticket on Latchkey that
    sets the browser's cookie, works once, and then links."""
    email, session = sign_up(stack.url, "ticket")
    headers = bearer(session["access_token"])
    redirect = httpx.get(f"{stack.url}/user/identities/authorize", params={"provider": "google"}, headers=headers,
                         trust_env=False, follow_redirects=False, timeout=10)
    assert redirect.status_code == 302, redirect.text
    assert redirect.headers["location"].startswith(f"{stack.url}/user/identities/continue?ticket="), redirect.headers["location"]
    answer = httpx.get(f"{stack.url}/user/identities/authorize", params={"provider": "google", "skip_http_redirect": "true",
                       "redirect_to": "myapp://callback"}, headers=headers, trust_env=False, timeout=10)
    ticket_url = answer.json()["url"]
    assert ticket_url.startswith(f"{stack.url}/user/identities/continue?ticket="), ticket_url

    browser = Browser()
    opened = browser.get(ticket_url)  # no bearer
    assert opened.status_code == 302 and opened.headers["location"].startswith(f"{stack.google.url}/authorize?"), opened.text
    assert COOKIE in browser.cookies, browser.set_cookies
    again = Browser().get(ticket_url)
    assert again.status_code == 303, again.text
    refused_as_bad_state(*split_redirect(again.headers["location"]))

    params = query_of(opened.headers["location"])
    _, query, fragment = browser.callback(stack.url, state=params["state"], code=stack.google.approve(params, google_claims(stack)))
    assert "access_token" in fragment, query
    assert providers_of(stack.url, email) == ["email", "google"]


@pytest.mark.parametrize("alice_cookie", ["none", "its own"])
def test_linking_csrf_a_link_state_finished_in_another_browser_is_refused(stack, alice_cookie):
    """Linking CSRF: Mallory starts a link for HER account and makes Alice's browser finish it with
    Alice's Google approval — Alice's Google account would then sign in as Mallory."""
    _, mallory = sign_up(stack.url, "mallory")
    params = start_link(stack, Browser(), mallory["access_token"])
    alice = Browser()
    if alice_cookie == "its own":
        alice.authorize(stack.url)
    alice_sub, alice_email = uuid.uuid4().hex, new_email("alice-g")
    code = stack.google.approve(params, google_claims(stack, email=alice_email, sub=alice_sub))
    refused_as_bad_state(*alice.callback(stack.url, state=params["state"], code=code))
    assert [i["provider"] for i in me(stack.url, mallory["access_token"])["identities"]] == ["email"]
    # Alice's Google sign-in gives Alice her own, new user.
    signed = id_token_grant(stack, alice_sub, alice_email)
    assert signed.status_code == 200 and signed.json()["user"]["id"] != mallory["user"]["id"], signed.text


# ===============================================================================================
# 4. A hook cannot mint operators
# ===============================================================================================


@pytest.mark.parametrize("protect", ["true", "false"])
def test_a_custom_access_token_hook_cannot_grant_an_operator_role(tmp_path, protect):
    """Attack: a compromised (or careless) customize-access-token hook answers `role: service_role`,
    so every user token it touches becomes an operator key for /admin."""
    receiver = Receiver()
    role = {"value": None}

    def claims_hook(payload):
        changed = dict(payload["claims"])
        if role["value"]:
            changed["role"] = role["value"]
        return 200, {"claims": changed}

    receiver.answers = {"/claims": claims_hook}
    env = {"LATCHKEY_HOOK_PROTECT_CLAIMS": protect, **hook_env(receiver, CUSTOM_ACCESS_TOKEN="/claims")}
    try:
        with serving(tmp_path, env) as url:
            email, _ = sign_up(url, "hooked")
            for operator in ["service_role", "supabase_admin"]:
                role["value"] = operator
                minted = httpx.post(f"{url}/token", params={"grant_type": "password"},
                                    json={"email": email, "password": PASSWORD}, trust_env=False, timeout=20)
                assert minted.status_code == 500 and "role" in minted.json().get("msg", ""), (operator, minted.text)
            # A non-operator role is still the hook's to give.
            role["value"] = "premium"
            premium = httpx.post(f"{url}/token", params={"grant_type": "password"},
                                 json={"email": email, "password": PASSWORD}, trust_env=False, timeout=20)
            assert premium.status_code == 200, premium.text
            assert token_claims(premium.json()["access_token"])["role"] == "premium"
    finally:
        receiver.close()


def test_a_user_token_with_an_operator_role_is_not_an_operator(stack):
    """Attack: a token that names a user's session (sub + session_id) but carries `role:
    service_role` — e.g. signed with the shared HS256 secret by a hook or a leaked signer — is
    taken as an operator key by /admin."""
    _, session = sign_up(stack.url, "forged")
    claims = token_claims(session["access_token"])
    assert claims.get("session_id"), claims
    forged = dict(claims, role="service_role")
    answer = httpx.get(f"{stack.url}/admin/users", trust_env=False, timeout=10,
                       headers=bearer(pyjwt.encode(forged, SECRET, algorithm="HS256")))
    assert answer.status_code == 403 and answer.json().get("error_code") == "not_admin", (answer.status_code, answer.text[:200])
    service_key = {k: v for k, v in forged.items() if k != "session_id"}
    answer = httpx.get(f"{stack.url}/admin/users", trust_env=False, timeout=10,
                       headers=bearer(pyjwt.encode(service_key, SECRET, algorithm="HS256")))
    assert answer.status_code == 200, answer.text[:200]


# ===============================================================================================
# 10. Provider error text is not forwarded
# ===============================================================================================


def test_the_providers_error_text_is_not_forwarded_to_the_app(stack):
    """Attack: a phishing text in `error_description` ("Call 1-900 …") and markup in `error` on the
    callback are passed to the app, which shows them as if they were ours."""
    browser = Browser()
    descriptions = []
    for text in ["Call++1-900+to+restore", "Something+else+entirely"]:
        params = browser.authorize(stack.url)
        answer = browser.get(f"{stack.url}/callback?state={quote(params['state'], safe='')}&error=access_denied"
                             f"&error_description={text}")
        assert answer.status_code == 303, answer.text
        location = answer.headers["location"]
        _, query, _ = split_redirect(location)
        assert query.get("error") == "access_denied", location
        for leaked in ["1-900", "restore", "else+entirely", "else%20entirely", "entirely"]:
            assert leaked not in location.lower(), location
        descriptions.append(query.get("error_description"))
    assert descriptions[0] and descriptions[0] == descriptions[1], descriptions  # a fixed text of ours

    params = browser.authorize(stack.url)
    answer = browser.get(f"{stack.url}/callback", params={"state": params["state"], "error": "<script>"})
    assert answer.status_code == 303, answer.text
    location = answer.headers["location"]
    assert split_redirect(location)[1].get("error") == "server_error", location
    assert "<script" not in location.lower() and "%3cscript" not in location.lower(), location


# ===============================================================================================
# 11. HTTP timeouts (raw sockets)
# ===============================================================================================


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory):
    """Idle and body timeouts at 2 s; the header timeout at its default (2 s)."""
    env = {"LATCHKEY_HTTP_IDLE_TIMEOUT": "2", "LATCHKEY_HTTP_BODY_TIMEOUT": "2"}
    with serving(tmp_path_factory.mktemp("round2-raw"), env) as url:
        yield url


def test_half_sent_headers_are_cut_off_and_keep_alive_still_works(raw_server):
    """Attack: a request whose headers never end holds a connection (and its memory) forever."""
    # Keep-alive first: two requests back to back on one socket are both answered.
    with connect(raw_server) as sock:
        for _ in range(2):
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            status, _ = read_response(sock)
            assert status == 200
    with connect(raw_server) as sock:
        sock.sendall(b"POST /signup HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed, data = wait_closed(sock, 6)
        assert closed, f"the server kept a half-header connection open for {time.monotonic() - started:.1f}s"
        assert status_of(data) in (None, 400, 408), data[:200]


def test_a_silent_connection_is_closed(raw_server):
    """Attack: connections that never send a byte exhaust the server's sockets."""
    with connect(raw_server) as sock:
        closed, data = wait_closed(sock, 6)
        assert closed, "a connection that sent nothing was still open after 6 s (idle timeout 2 s)"


def test_a_stalled_body_is_cut_off_without_a_server_error(raw_server):
    """Attack: headers promise 1000 bytes, 10 arrive, then nothing — the handler waits forever."""
    with connect(raw_server) as sock:
        sock.sendall(b"POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                     + b'{"email":"')
        closed, data = wait_closed(sock, 6)
        assert closed, "a connection with a stalled body was still open after 6 s (body timeout 2 s)"
        status = status_of(data)
        assert status is None or 400 <= status < 500, data[:200]


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    """Every HTTP timeout at its default (body and idle 30 s): what ends a connection here is not a
    timeout."""
    with serving(tmp_path_factory.mktemp("round2-defaults"), {}) as url:
        yield url


def test_an_oversized_body_gets_413_and_the_connection_is_closed(default_server):
    """Attack: a 10 MB body trickled in — the server must refuse it and end the connection rather
    than keep reading (or keep the socket) for the rest. With the body timeout at its default of
    30 s, only the 413's own close can end it within seconds."""
    with connect(default_server) as sock:
        sock.sendall(b"POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 10000000\r\n\r\n")
        chunk = b" " * 65536
        data = b""
        deadline = time.monotonic() + 20
        sent = 0
        closed = False
        while time.monotonic() < deadline and sent < 10_000_000 and status_of(data) is None and not closed:
            readable, _, _ = select.select([sock], [], [], 0.02)  # ~3 MB/s at most
            if readable:
                try:
                    got = sock.recv(65536)
                except (ConnectionResetError, BrokenPipeError):
                    closed = True
                    break
                closed = not got
                data += got
                continue
            try:
                sock.sendall(chunk)
                sent += len(chunk)
            except (ConnectionResetError, BrokenPipeError, socket.timeout):
                break
        answered = time.monotonic()
        if not closed:
            closed, more = wait_closed(sock, 5)
            data += more
        assert status_of(data) == 413, (sent, data[:300])
        assert b"connection: close" in data.lower(), data[:300]
        assert closed, f"the connection stayed open after the 413 (sent {sent} bytes)"
        assert time.monotonic() - answered < 5


def test_slowloris_connections_are_closed_and_the_server_keeps_answering(raw_server):
    """Slowloris: 100 sockets each send half a request and stall."""
    started = time.monotonic()
    sockets = []
    try:
        for _ in range(100):
            sock = connect(raw_server)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            sockets.append(sock)
        time.sleep(max(0.0, started + 4 - time.monotonic()))
        health = httpx.get(f"{raw_server}/health", trust_env=False, timeout=2)
        assert health.status_code == 200
        deadline = started + 6
        still_open = sum(1 for sock in sockets if not wait_closed(sock, max(0.01, deadline - time.monotonic()))[0])
        assert still_open == 0, f"{still_open} of 100 slowloris sockets still open after {time.monotonic() - started:.1f}s"
    finally:
        for sock in sockets:
            sock.close()


# ===============================================================================================
# 7. Console sign-out revokes the session; 6. hosted pages do not tell addresses apart
# ===============================================================================================


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Hosted pages and the console, sign-ups off, the default 60 s between two mails to one address."""
    app = App()
    port = _free_port()
    url = f"http://localhost:{port}"
    env = {
        "API_EXTERNAL_URL": url,
        "GOTRUE_SITE_URL": f"http://localhost:{app.port}",
        "GOTRUE_URI_ALLOW_LIST": f"http://localhost:{app.port}/**",
        "GOTRUE_DISABLE_SIGNUP": "true",
        "LATCHKEY_ADMIN_CONSOLE": "true",
        "GOTRUE_SMTP_MAX_FREQUENCY": "60",
    }
    try:
        with serving(tmp_path_factory.mktemp("round2-pages"), env, port=port):
            yield url, app
    finally:
        app.server.shutdown()


def test_a_copied_console_cookie_is_dead_after_sign_out(pages):
    """Attack: an `lk_admin` cookie copied before the operator signs out (from a shared machine or a
    log) keeps the console open, because sign-out only asked the browser to forget it."""
    server, _ = pages
    console = httpx.Client(trust_env=False, follow_redirects=False, timeout=20, base_url=f"{server}/ui/admin/")

    def csrf(answer):
        return re.search(r'name="csrf" value="([^"]+)"', answer.text).group(1)

    signed = console.post("sign-in", data={"csrf": csrf(console.get("sign-in")),
                                           "token": service_headers()["Authorization"][7:]})
    assert signed.status_code == 303 and "lk_admin" in signed.headers.get("set-cookie", ""), signed.text
    copied = console.cookies["lk_admin"]
    page = console.get("users")
    assert page.status_code == 200, page.text
    out = console.post("sign-out", data={"csrf": csrf(page)})
    assert out.status_code in (200, 303), out.text
    console.close()

    replay = httpx.get(f"{server}/ui/admin/users", headers={"Cookie": f"lk_admin={copied}"}, trust_env=False,
                       follow_redirects=False, timeout=20)
    assert replay.status_code == 303 and replay.headers["location"].endswith("sign-in"), (replay.status_code, replay.text[:200])


def _masked(answer: httpx.Response, address: str) -> tuple[int, str]:
    text = re.sub(r'name="csrf" value="[^"]+"', "", answer.text)
    text = re.sub(r'nonce="[^"]+"', "", text)
    return answer.status_code, text.replace(address, "ADDRESS")


@pytest.mark.parametrize("form", ["code", "magic-link"])
def test_hosted_pages_do_not_tell_known_from_unknown_addresses(pages, form):
    """Enumeration: post the same address twice — a known address hits the per-address send limit
    on the second post and shows "Too many attempts", an unknown one does not."""
    server, app = pages
    known = new_email("known")
    create_user(server, known, PASSWORD)
    unknown = new_email("unknown")
    seen = {}
    flow = PKCE()
    for address in (known, unknown):
        browser = PagesBrowser(server, app, flow)
        browser.open("sign-in")
        seen[address] = [_masked(browser.post(form, email=address), address) for _ in range(2)]
    for attempt in range(2):
        assert seen[known][attempt] == seen[unknown][attempt], (
            f"post #{attempt + 1} to /ui/{form} differs: known {seen[known][attempt][0]} vs unknown {seen[unknown][attempt][0]}; "
            f"known page says {re.findall(r'class=.error.[^<]*>([^<]*)', seen[known][attempt][1])}")
