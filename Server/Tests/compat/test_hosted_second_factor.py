"""The hosted pages' second-factor step (#39) as plain HTML forms over real HTTP: a user with a
verified factor who signs in with a password is asked for it before the app gets a session: an
authenticator app's code, a code texted to their phone, or a recovery code (offered after a wrong
code). The app's session is then aal2. Without the step's cookie, with a forged CSRF token, or
with a spent recovery code, nothing is handed over."""

from __future__ import annotations

import base64
import json
import random
import time
import uuid

import httpx
import pyotp

from hosted_app import PKCE, app, create_user, latest_code, server  # noqa: F401 - app and server are fixtures
from test_hosted_forms import Browser


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def api(server: str, method: str, path: str, token: str, body: dict | None = None) -> dict:
    answer = httpx.request(method, f"{server}{path}", json=body, headers={"Authorization": f"Bearer {token}"}, trust_env=False)
    assert answer.status_code == 200, answer.text
    return answer.json()


def with_totp(server: str) -> tuple[str, str, pyotp.TOTP, list[str]]:
    """A user with a verified authenticator app and recovery codes: (email, password, TOTP, codes)."""
    email = f"mfa-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    token = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                       trust_env=False).json()["access_token"]
    factor = api(server, "POST", "/factors", token, {"factor_type": "totp", "friendly_name": "Work phone"})
    totp = pyotp.TOTP(factor["totp"]["secret"])
    challenge = api(server, "POST", f"/factors/{factor['id']}/challenge", token, {})
    aal2 = api(server, "POST", f"/factors/{factor['id']}/verify", token,
               {"challenge_id": challenge["id"], "code": totp.now()})["access_token"]
    codes = api(server, "POST", "/recovery-codes", aal2, {})["codes"]
    return email, password, totp, codes


def signed_in_with_password(server: str, app, email: str, password: str) -> Browser:
    browser = Browser(server, app, PKCE())
    browser.open("sign-in")
    answer = browser.post("password", email=email, password=password)
    assert answer.status_code == 303 and answer.headers["location"] == "second-factor", answer.text
    assert "lk_second_factor=" in answer.headers["set-cookie"] and "HttpOnly" in answer.headers["set-cookie"]
    return browser


def test_a_wrong_code_offers_a_recovery_code_which_signs_in_at_aal2(server, app):
    email, password, totp, codes = with_totp(server)
    browser = signed_in_with_password(server, app, email, password)
    page = browser.client.get(f"{server}/ui/second-factor")
    browser.read(page)
    assert page.status_code == 200 and "Code from your authenticator app (Work phone)" in page.text
    assert "<details>" in page.text and "Text a code to" not in page.text and "id=\"key-button\"" not in page.text and "<script" not in page.text

    wrong = browser.post("second-factor", factor_id=page.text.split('name="factor_id" value="')[1].split('"')[0],
                         code="000000" if totp.now() != "000000" else "111111")
    assert wrong.status_code == 422 and "That code is not right" in wrong.text and "use a recovery code" in wrong.text
    assert "<details open>" in wrong.text

    answer = browser.post("recovery-code", code=codes[0].upper())
    assert "lk_second_factor=;" in answer.headers["set-cookie"] or "Max-Age=0" in answer.headers["set-cookie"]
    session = browser.finish(answer)
    token = claims(session["access_token"])
    assert token["aal"] == "aal2" and "mfa/recovery" in [m["method"] for m in token["amr"]]

    # The code is spent: the next sign-in cannot use it, and nothing goes to the app.
    again = signed_in_with_password(server, app, email, password)
    again.read(again.client.get(f"{server}/ui/second-factor"))
    refused = again.post("recovery-code", code=codes[0])
    assert refused.status_code == 422 and "That code is not right" in refused.text


def test_the_authenticator_apps_code_signs_in_at_aal2(server, app):
    email, password, totp, _ = with_totp(server)
    browser = signed_in_with_password(server, app, email, password)
    page = browser.client.get(f"{server}/ui/second-factor")
    browser.read(page)
    factor_id = page.text.split('name="factor_id" value="')[1].split('"')[0]
    # The current step's code was used to enrol: the next one is within the window.
    session = browser.finish(browser.post("second-factor", factor_id=factor_id, code=totp.at(time.time() + 30)))
    assert claims(session["access_token"])["aal"] == "aal2"
    assert session["user"]["email"] == email


def test_a_phone_factors_code_is_texted_on_request(server, app):
    email = f"sms-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    number = "4477009" + "".join(random.choice("0123456789") for _ in range(5))
    token = httpx.post(f"{server}/token", params={"grant_type": "password"}, json={"email": email, "password": password},
                       trust_env=False).json()["access_token"]
    factor = api(server, "POST", "/factors", token, {"factor_type": "phone", "phone": "+" + number})
    challenge = api(server, "POST", f"/factors/{factor['id']}/challenge", token, {})
    code, seen = latest_code(server, number)
    api(server, "POST", f"/factors/{factor['id']}/verify", token, {"challenge_id": challenge["id"], "code": code})

    browser = signed_in_with_password(server, app, email, password)
    page = browser.client.get(f"{server}/ui/second-factor")
    browser.read(page)
    assert "Text a code to +" in page.text and number[:-4] not in page.text and "phone-code" not in page.text
    time.sleep(1.1)  # the factor's cooldown since its enrolment's challenge (GOTRUE_MFA_PHONE_MAX_FREQUENCY here)
    sent = browser.post("second-factor-send", factor_id=factor["id"])
    assert sent.status_code == 200 and "Code sent to +" in sent.text and "Send a new code" in sent.text, sent.text
    challenge_id = sent.text.split('name="challenge_id" value="')[1].split('"')[0]
    code, _ = latest_code(server, number, exclude=seen)
    session = browser.finish(browser.post("second-factor", factor_id=factor["id"], challenge_id=challenge_id, code=code))
    assert claims(session["access_token"])["aal"] == "aal2"


def test_without_the_steps_cookie_or_with_a_forged_token_nothing_is_handed_over(server, app):
    email, password, totp, codes = with_totp(server)
    stranger = Browser(server, app, PKCE())
    stranger.open("sign-in")
    assert stranger.client.get(f"{server}/ui/second-factor").status_code == 403
    assert stranger.post("recovery-code", code=codes[1]).status_code == 403

    browser = signed_in_with_password(server, app, email, password)
    browser.read(browser.client.get(f"{server}/ui/second-factor"))
    browser.csrf = "forged"
    assert browser.post("recovery-code", code=codes[1]).status_code in (400, 403)
    # The script's call needs the page's token too.
    options = browser.client.post(f"{server}/ui/second-factor-options", headers={"X-CSRF-Token": "forged"})
    assert options.status_code == 401
    # The code is still good: nothing spent it.
    browser.read(browser.client.get(f"{server}/ui/second-factor"))
    assert browser.finish(browser.post("recovery-code", code=codes[1]))["user"]["email"] == email


def test_a_user_without_a_factor_goes_straight_on(server, app):
    email = f"plain-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    create_user(server, email, password)
    browser = Browser(server, app, PKCE())
    browser.open("sign-in")
    answer = browser.post("password", email=email, password=password)
    assert answer.status_code == 303 and answer.headers["location"] == "continue"


def test_bad_answers_on_the_step_are_refused_on_the_page_and_spend_nothing(server, app):
    """The step's error paths: no security key to ask for, a credential that is not one, a factor
    that is not the user's; each is shown on the page, and the app's code still works after."""
    email, password, totp, _ = with_totp(server)
    browser = signed_in_with_password(server, app, email, password)
    page = browser.client.get(f"{server}/ui/second-factor")
    browser.read(page)
    factor_id = page.text.split('name="factor_id" value="')[1].split('"')[0]

    options = browser.client.post(f"{server}/ui/second-factor-options", headers={"X-CSRF-Token": browser.csrf})
    assert options.status_code == 404 and options.json()["error_code"] == "mfa_factor_not_found"
    garbage = browser.post("second-factor", factor_id=factor_id, challenge_id=str(uuid.uuid4()), credential="{not json")
    assert garbage.status_code == 400 and 'class="error"' in garbage.text
    stranger = browser.post("second-factor-send", factor_id=str(uuid.uuid4()))
    assert stranger.status_code == 404 and "Factor not found" in stranger.text
    nonsense = browser.post("second-factor-send", factor_id="../../admin")
    assert nonsense.status_code == 404

    session = browser.finish(browser.post("second-factor", factor_id=factor_id, code=totp.at(time.time() + 30)))
    assert claims(session["access_token"])["aal"] == "aal2"
