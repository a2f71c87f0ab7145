"""The hosted pages in a real browser (Debian's chromium and chromium-driver, driven by Selenium):
a person signs up with an emailed code, adds a passkey with Chrome's virtual authenticator, signs
out, and signs in again with the passkey and no username; the app's redirect receives a PKCE code
that exchanges for a session. Password sign-in and a lock-out, a wrong code, a forged CSRF token
and a `redirect_to` off the list. Each page is saved as a screenshot (LATCHKEY_SCREENSHOTS, by
default Server/.build/screenshots) for a person to look at."""

from __future__ import annotations

import base64
import os
import shutil
import urllib.parse
import uuid
from pathlib import Path

import httpx
import pytest

from conftest import REPO
from hosted_app import PKCE, App, app, create_user, latest_code, server  # noqa: F401 - app and server are fixtures
from test_supabase_admin import service_headers

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the skip below says how to get it
    webdriver = None

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None or webdriver is None,
    reason="the browser tests need Chromium and its driver: apt-get install chromium chromium-driver "
    "(and selenium, from Server/Tests/compat/requirements.txt); .ci/run installs them",
)

SCREENSHOTS = Path(os.environ.get("LATCHKEY_SCREENSHOTS", REPO / "Server" / ".build" / "screenshots"))


@pytest.fixture
def browser():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=420,900", "--lang=en"]:
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    authenticator = VirtualAuthenticatorOptions()
    authenticator.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    authenticator.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    authenticator.has_resident_key = True
    authenticator.has_user_verification = True
    authenticator.is_user_verified = True
    driver.add_virtual_authenticator(authenticator)
    yield driver
    driver.quit()


def shot(driver, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def wait_for(driver, condition, timeout: float = 10):
    wait = WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    return wait.until(lambda d: _settled(condition, d))


def _settled(condition, driver):
    """`condition`, or False while Chrome replaces the document under it (a button's form was
    posted: "Node with given id does not belong to the document"), so the wait asks again."""
    try:
        return condition(driver)
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return False
        raise


def _left_the_document(element) -> bool:
    """Whether `element`'s page is gone: stale, or (as Chrome sometimes answers while the old
    document is being replaced) "Node with given id does not belong to the document"."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise


def submit(driver, button) -> None:
    """Clicks a form's button and waits for the page the server answers with."""
    old = driver.find_element(By.TAG_NAME, "html")
    button.click()
    WebDriverWait(driver, 10).until(lambda _: _left_the_document(old))
    # The old document is gone; wait for the new one to be whole before anything looks it up
    # (Chrome otherwise answers "Node with given id does not belong to the document").
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def status_text(driver) -> str:
    return driver.find_element(By.ID, "status").text


def test_sign_up_by_code_add_a_passkey_and_sign_in_with_it(server, app, browser):
    email = f"ada-{uuid.uuid4().hex[:8]}@example.com"
    first = PKCE()
    browser.get(first.page(server, app))
    assert browser.title.startswith("Sign in")
    shot(browser, "01-sign-in")
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.XPATH, "//button[text()='Email me a code']").click()
    wait_for(browser, lambda d: d.title.startswith("Enter your code"))
    shot(browser, "02-code")
    code, seen = latest_code(server, email)
    wrong = "000000" if code != "000000" else "111111"
    browser.find_element(By.ID, "code").send_keys(wrong)
    browser.find_element(By.XPATH, "//button[text()='Continue']").click()
    wait_for(browser, lambda d: "not right" in status_text(d))
    assert "4 tries left" in status_text(browser)
    shot(browser, "03-code-wrong")
    browser.find_element(By.ID, "code").send_keys(code)
    browser.find_element(By.XPATH, "//button[text()='Continue']").click()
    wait_for(browser, lambda d: d.title.startswith("You're signed in"))
    add = wait_for(browser, lambda d: d.find_element(By.ID, "passkey-add").is_displayed() and d.find_element(By.ID, "passkey-add"))
    shot(browser, "04-signed-in")
    add.click()
    session = first.exchange(server, app.code()).json()
    assert session["user"]["email"] == email, session
    passkeys = httpx.get(f"{server}/passkeys", headers={"Authorization": f"Bearer {session['access_token']}"},
                         trust_env=False).json()
    assert len(passkeys) == 1, passkeys
    shot(browser, "05-back-in-the-app")

    # Signed out everywhere: the refresh token no longer works.
    out = httpx.post(f"{server}/logout", params={"scope": "global"},
                     headers={"Authorization": f"Bearer {session['access_token']}"}, trust_env=False)
    assert out.status_code == 204
    refreshed = httpx.post(f"{server}/token", params={"grant_type": "refresh_token"},
                           json={"refresh_token": session["refresh_token"]}, trust_env=False)
    assert refreshed.status_code == 400

    # Back with the passkey, no address typed.
    second = PKCE()
    browser.delete_all_cookies()
    browser.get(second.page(server, app))
    button = wait_for(browser, lambda d: d.find_element(By.ID, "passkey-button").is_displayed()
                      and d.find_element(By.ID, "passkey-button"))
    button.click()
    again = second.exchange(server, app.code())
    assert again.status_code == 200, again.text
    signed = again.json()
    assert signed["user"]["email"] == email
    payload = signed["access_token"].split(".")[1]
    import json
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert [m["method"] for m in claims["amr"]] == ["passkey"]
    # The code is good once, and only with the verifier of the page's challenge.
    assert first.exchange(server, "not-a-code").status_code in (400, 404, 422)


def test_password_sign_in_and_a_locked_account(server, app, browser):
    email = f"grace-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    flow = PKCE()
    browser.get(flow.page(server, app))
    browser.find_element(By.TAG_NAME, "summary").click()
    browser.find_element(By.ID, "password-email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(password)
    shot(browser, "06-password")
    browser.find_element(By.XPATH, "//button[text()='Sign in']").click()
    wait_for(browser, lambda d: d.title.startswith("You're signed in"))
    browser.find_element(By.ID, "continue").click()
    session = flow.exchange(server, app.code())
    assert session.status_code == 200 and session.json()["user"]["email"] == email

    locked = PKCE()
    browser.get(locked.page(server, app))
    for attempt in range(4):
        if not browser.find_element(By.ID, "password").is_displayed():
            browser.find_element(By.TAG_NAME, "summary").click()
        browser.find_element(By.ID, "password-email").clear()
        browser.find_element(By.ID, "password-email").send_keys(email)
        browser.find_element(By.ID, "password").send_keys("wrong password " + str(attempt))
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert "Too many attempts" in status_text(browser), status_text(browser)
    shot(browser, "07-locked")
    # Locked means locked: the right password is refused too, in the page as in the API.
    if not browser.find_element(By.ID, "password").is_displayed():
        browser.find_element(By.TAG_NAME, "summary").click()
    browser.find_element(By.ID, "password").send_keys(password)
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert "Too many attempts" in status_text(browser)
    assert not any("code=" in hit for hit in app.hits)


def test_a_forged_csrf_token_and_a_redirect_off_the_list_are_refused(server, app, browser):
    flow = PKCE()
    browser.get(flow.page(server, app))
    browser.execute_script("document.querySelectorAll('input[name=csrf]').forEach(i => i.value = 'forged')")
    browser.find_element(By.ID, "email").send_keys("mallory@example.com")
    browser.find_element(By.XPATH, "//button[text()='Email me a code']").click()
    wait_for(browser, lambda d: d.title.startswith("This form has expired"))
    shot(browser, "08-csrf")
    # Another site's form (no CSRF cookie) gets the same page, and nothing is sent.
    posted = httpx.post(f"{server}/ui/code", data={"email": "victim@example.com", "csrf": "x", "redirect_to": app.callback,
                                                  "code_challenge": flow.challenge, "code_challenge_method": "s256"},
                        trust_env=False)
    assert posted.status_code == 403
    assert httpx.get(f"{server}/_dev/mailbox", params={"to": "victim@example.com"}, headers={"Accept": "application/json"},
                     trust_env=False).json()["messages"] == []

    for target in ["https://evil.example/callback", f"http://localhost:{app.port}.evil.example/", "javascript:alert(1)"]:
        query = urllib.parse.urlencode({"redirect_to": target, "code_challenge": flow.challenge, "code_challenge_method": "s256"})
        browser.get(f"{server}/ui/sign-in?{query}")
        assert browser.title.startswith("This app cannot sign in here"), target
        assert not browser.find_elements(By.TAG_NAME, "form")
    shot(browser, "09-redirect-refused")
    browser.get(f"{server}/ui/sign-in?redirect_to={urllib.parse.quote(app.callback)}")
    assert browser.title.startswith("Open this page from the app")


def service_token() -> str:
    return service_headers()["Authorization"].removeprefix("Bearer ")


def test_an_operator_signs_a_user_out_everywhere_from_the_console(server, app, browser):
    email = f"linus-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    user_id = create_user(server, email, password)
    session = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                         trust_env=False).json()

    browser.get(f"{server}/ui/admin/users")
    assert browser.title.startswith("Operator sign-in")
    browser.find_element(By.ID, "token").send_keys(session["access_token"])
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert "not an operator" in status_text(browser)
    shot(browser, "10-console-sign-in")
    browser.find_element(By.ID, "token").send_keys(service_token())
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert browser.title.startswith("Users")
    browser.find_element(By.ID, "q").send_keys(email.split("@")[0])
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Search']"))
    shot(browser, "11-console-users")
    submit(browser, browser.find_element(By.LINK_TEXT, email))
    assert browser.title.startswith(email)
    assert "aal1" in browser.page_source
    shot(browser, "12-console-user")
    submit(browser, browser.find_element(By.ID, "sign-out-everywhere"))
    assert "Signed out everywhere" in browser.page_source
    refreshed = httpx.post(f"{server}/token", params={"grant_type": "refresh_token"},
                           json={"refresh_token": session["refresh_token"]}, trust_env=False)
    assert refreshed.status_code == 400, refreshed.text
    audit = httpx.get(f"{server}/admin/audit", params={"user_id": user_id, "action": "logout"}, headers=service_headers(),
                      trust_env=False).json()
    assert audit and audit[0]["payload"]["actor_username"] == "service_role"

    # Deleting asks twice: the address typed wrong deletes nothing.
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Delete this user…']"))
    browser.find_element(By.ID, "confirm").send_keys("not the address")
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Delete for good']"))
    assert "nothing was deleted" in status_text(browser)
    assert httpx.get(f"{server}/admin/users/{user_id}", headers=service_headers(), trust_env=False).status_code == 200
    browser.find_element(By.ID, "confirm").send_keys(email)
    shot(browser, "13-console-delete")
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Delete for good']"))
    assert "The user is deleted" in browser.page_source
    assert httpx.get(f"{server}/admin/users/{user_id}", headers=service_headers(), trust_env=False).status_code == 404

    # A console form posted without the console's cookie and token does nothing.
    forged = httpx.post(f"{server}/ui/admin/sign-out-user", data={"id": user_id, "csrf": "x"}, trust_env=False)
    assert forged.status_code == 403


def test_a_magic_link_opened_in_the_browser_comes_back_to_the_app(server, app, browser):
    """The link's confirmation page posts to `/verify`, which redirects to the app: the page's
    Content-Security-Policy must let that form's redirect leave the server's origin."""
    email = f"link-{uuid.uuid4().hex[:8]}@example.com"
    create_user(server, email, "correct horse battery staple " + uuid.uuid4().hex[:6])
    flow = PKCE()
    browser.get(flow.page(server, app))
    browser.find_element(By.ID, "email").send_keys(email)
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Email me a link instead']"))
    assert browser.title.startswith("Check your email")
    message = httpx.get(f"{server}/_dev/mailbox", params={"to": email}, headers={"Accept": "application/json"},
                        trust_env=False).json()["messages"][0]
    import re
    link = re.search(r"(http://\S+/verify\?\S+)", message["text"]).group(1)
    browser.get(link.replace("127.0.0.1", "localhost"))
    shot(browser, "14-link-confirmation")
    browser.find_element(By.XPATH, "//button[text()='Continue']").click()
    session = flow.exchange(server, app.code())
    assert session.status_code == 200 and session.json()["user"]["email"] == email


def test_the_second_factor_step_takes_a_recovery_code_after_a_wrong_one(server, app, browser):
    """#39: a user with an authenticator app signs in with a password; the page asks for the
    app's code, a wrong one opens the recovery-code form, and a recovery code gets the app an
    aal2 session."""
    from test_hosted_second_factor import claims, with_totp

    email, password, totp, codes = with_totp(server)
    flow = PKCE()
    browser.get(flow.page(server, app))
    browser.find_element(By.TAG_NAME, "summary").click()
    browser.find_element(By.ID, "password-email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(password)
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert browser.title.startswith("Two-step verification"), browser.title
    assert not browser.find_element(By.ID, "recovery-code").is_displayed()
    shot(browser, "15-second-factor")
    browser.find_element(By.ID, "code").send_keys("000000" if totp.now() != "000000" else "111111")
    submit(browser, browser.find_element(By.XPATH, "//form[@action='second-factor']//button"))
    assert "That code is not right" in status_text(browser) and "recovery code" in status_text(browser)
    field = browser.find_element(By.ID, "recovery-code")
    assert field.is_displayed(), "a wrong code opens the recovery-code form"
    shot(browser, "16-second-factor-wrong")
    field.send_keys(codes[0])
    submit(browser, browser.find_element(By.XPATH, "//form[@action='recovery-code']//button"))
    wait_for(browser, lambda d: d.title.startswith("You're signed in"))
    browser.find_element(By.ID, "continue").click()
    session = flow.exchange(server, app.code())
    assert session.status_code == 200, session.text
    token = claims(session.json()["access_token"])
    assert token["aal"] == "aal2" and "mfa/recovery" in [m["method"] for m in token["amr"]]


def test_the_second_factor_step_with_a_security_key(server, app, browser):
    """#39: a WebAuthn factor (a key registered through the API) answers the page's challenge from
    Chrome's virtual authenticator, through the page's script."""
    from cryptography.hazmat.primitives import serialization
    from selenium.webdriver.common.virtual_authenticator import Credential

    from test_hosted_second_factor import api, claims
    from webauthn_authenticator import Authenticator

    email = f"key-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    token = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                       trust_env=False).json()["access_token"]
    factor = api(server, "POST", "/factors", token, {"factor_type": "webauthn", "friendly_name": "YubiKey"})
    creating = api(server, "POST", f"/factors/{factor['id']}/challenge", token, {})
    key = Authenticator(rp_id="localhost", origin=server)
    credential = key.create({"options": creating["webauthn"]["credential_options"]["publicKey"]})
    api(server, "POST", f"/factors/{factor['id']}/verify", token,
        {"challenge_id": creating["id"], "webauthn": {"type": "create", "credential_response": credential}})
    private = key.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    browser.add_credential(Credential.create_non_resident_credential(key.credential_id, "localhost", private, 0))

    flow = PKCE()
    browser.get(flow.page(server, app))
    browser.find_element(By.TAG_NAME, "summary").click()
    browser.find_element(By.ID, "password-email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(password)
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Sign in']"))
    assert browser.title.startswith("Two-step verification"), browser.title
    button = wait_for(browser, lambda d: d.find_element(By.ID, "key-button") if d.find_element(By.ID, "key-button").is_displayed() else False)
    shot(browser, "17-second-factor-key")
    button.click()
    wait_for(browser, lambda d: d.title.startswith("You're signed in"))
    browser.find_element(By.ID, "continue").click()
    session = flow.exchange(server, app.code())
    assert session.status_code == 200, session.text
    token = claims(session.json()["access_token"])
    assert token["aal"] == "aal2" and "mfa/webauthn" in [m["method"] for m in token["amr"]]


def test_a_third_party_site_signs_a_user_in_through_the_consent_page(server, app, browser):
    # Another site: the pages are on localhost, the party on 127.0.0.1.
    party = App(host="127.0.0.1")
    try:
        client = httpx.post(f"{server}/oauth/clients/register", trust_env=False, json={
            "client_name": "Photo Printer", "redirect_uris": [party.callback], "token_endpoint_auth_method": "client_secret_basic"})
        assert client.status_code == 201, client.text
        client = client.json()
        email = f"rp-{uuid.uuid4().hex[:8]}@example.com"
        password = "correct horse battery staple " + uuid.uuid4().hex[:6]
        create_user(server, email, password)
        verifier = PKCE()
        party.link = f"{server}/oauth/authorize?" + urllib.parse.urlencode({
            "client_id": client["client_id"], "redirect_uri": party.callback, "response_type": "code", "scope": "email",
            "state": "rp-state", "code_challenge": verifier.challenge, "code_challenge_method": "S256"})
        # (`email` alone: this server signs with GOTRUE_JWT_SECRET, and an HS256 id_token is refused.)
        # From the other site's link (a cross-site navigation: SameSite=Strict cookies stay home).
        browser.get(f"http://127.0.0.1:{party.port}/start")
        browser.find_element(By.ID, "go").click()
        wait_for(browser, lambda d: d.title.startswith("Sign in"))
        browser.find_element(By.TAG_NAME, "summary").click()
        browser.find_element(By.ID, "password-email").send_keys(email)
        browser.find_element(By.ID, "password").send_keys(password)
        browser.find_element(By.XPATH, "//button[text()='Sign in']").click()
        wait_for(browser, lambda d: d.title.startswith("You're signed in"))
        browser.find_element(By.ID, "continue").click()
        wait_for(browser, lambda d: d.title.startswith("Allow access"))
        assert "Photo Printer" in browser.page_source and "See your email address" in browser.page_source
        shot(browser, "20-consent")
        browser.find_element(By.ID, "approve").click()
        wait_for(browser, lambda d: d.title == "App" and "/callback" in d.current_url)
        back = urllib.parse.urlsplit(browser.current_url)
        query = urllib.parse.parse_qs(back.query)
        assert back.path == "/callback" and query["state"] == ["rp-state"]
        tokens = httpx.post(f"{server}/oauth/token", trust_env=False, auth=(client["client_id"], client["client_secret"]), data={
            "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": party.callback,
            "code_verifier": verifier.verifier})
        assert tokens.status_code == 200, tokens.text
        info = httpx.get(f"{server}/oauth/userinfo", headers={"Authorization": f"Bearer {tokens.json()['access_token']}"},
                         trust_env=False)
        assert info.json()["email"] == email
    finally:
        party.server.shutdown()
