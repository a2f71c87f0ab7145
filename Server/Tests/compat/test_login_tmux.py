"""`latchkey login` driven through tmux, as a person would use it."""

import shutil
import subprocess
import time
import uuid

import pytest

from conftest import _find_binary as binary_path
from conftest import supabase_client

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")


class Pane:
    def __init__(self, command: list[str]):
        self.name = f"latchkey-{uuid.uuid4().hex[:8]}"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", "200", "-y", "50", *command],
            check=True,
        )
        subprocess.run(["tmux", "set-option", "-t", self.name, "remain-on-exit", "on"], check=True)

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True, check=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.time() + timeout
        while time.time() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def test_login_with_an_emailed_code_and_a_wrong_try(latchkey_server):
    email = f"tmux-{uuid.uuid4().hex[:8]}@example.com"
    pane = Pane([str(binary_path()), "login", "--email", email, "--url", latchkey_server.url])
    try:
        pane.wait_for("Code:")
        code = latchkey_server.latest_code(email)
        pane.type("000000" if code != "000000" else "111111")
        # The suite's server keeps GoTrue's defaults (no cap per code): the wrong try is said, and
        # the prompt comes back.
        pane.wait_for("That code is not right")
        pane.type(code)
        screen = pane.wait_for(f"Signed in as {email}")
        assert "Session expires at" in screen
    finally:
        pane.close()


def test_login_with_a_password_does_not_echo_it(latchkey_server):
    email = f"tmux-pw-{uuid.uuid4().hex[:8]}@example.com"
    password = "tmux secret passphrase " + uuid.uuid4().hex[:6]
    client = supabase_client(latchkey_server.url)
    client.sign_up({"email": email, "password": password})
    client.verify_otp({"email": email, "token": latchkey_server.latest_code(email), "type": "signup"})

    pane = Pane([str(binary_path()), "login", "--email", email, "--url", latchkey_server.url, "--password"])
    try:
        pane.wait_for("Password:")
        pane.type(password)
        screen = pane.wait_for(f"Signed in as {email}")
        assert password not in screen
    finally:
        pane.close()


def test_login_asks_for_the_authenticator_code_when_the_account_has_one(latchkey_server):
    import pyotp

    email = f"tmux-mfa-{uuid.uuid4().hex[:8]}@example.com"
    password = "tmux secret passphrase " + uuid.uuid4().hex[:6]
    client = supabase_client(latchkey_server.url)
    client.sign_up({"email": email, "password": password})
    client.verify_otp({"email": email, "token": latchkey_server.latest_code(email), "type": "signup"})
    factor = client.mfa.enroll({"factor_type": "totp", "friendly_name": "Work phone"})
    totp = pyotp.TOTP(factor.totp.secret)
    client.mfa.challenge_and_verify({"factor_id": factor.id, "code": totp.now()})

    pane = Pane([str(binary_path()), "login", "--email", email, "--url", latchkey_server.url, "--password"])
    try:
        pane.wait_for("Password:")
        pane.type(password)
        pane.wait_for("This account has a second factor (Work phone).")
        pane.wait_for("Authenticator code (or a recovery code):")
        pane.type("000000" if totp.now() != "000000" else "111111")
        pane.wait_for("That code is not right")
        # The code just used is spent: the next step's code is within the window.
        pane.type(totp.at(time.time() + 30))
        screen = pane.wait_for(f"Signed in as {email} with a second factor")
        assert "Session expires at" in screen
    finally:
        pane.close()


def test_login_sends_a_code_to_the_phone_factor(latchkey_server):
    """#39: an account whose second factor is a phone gets its code by SMS (here the dev mailbox)."""
    import random

    email = f"tmux-phone-{uuid.uuid4().hex[:8]}@example.com"
    password = "tmux secret passphrase " + uuid.uuid4().hex[:6]
    number = "4477009" + "".join(random.choice("0123456789") for _ in range(5))
    client = supabase_client(latchkey_server.url)
    client.sign_up({"email": email, "password": password})
    client.verify_otp({"email": email, "token": latchkey_server.latest_code(email), "type": "signup"})
    factor = client.mfa.enroll({"factor_type": "phone", "phone": "+" + number})
    seen = latchkey_server.message_ids(number)
    challenge = client.mfa.challenge({"factor_id": factor.id})
    client.mfa.verify({"factor_id": factor.id, "challenge_id": challenge.id,
                       "code": latchkey_server.latest_code(number, exclude=seen)})
    time.sleep(1.1)  # the suite's GOTRUE_MFA_PHONE_MAX_FREQUENCY

    seen = latchkey_server.message_ids(number)
    pane = Pane([str(binary_path()), "login", "--email", email, "--url", latchkey_server.url, "--password"])
    try:
        pane.wait_for("Password:")
        pane.type(password)
        pane.wait_for(f"A code was sent to +")
        code = latchkey_server.latest_code(number, exclude=seen)
        pane.type("000000" if code != "000000" else "111111")
        pane.wait_for("That code is not right")
        pane.type(code)
        screen = pane.wait_for(f"Signed in as {email} with a second factor")
        assert number[:-4] not in screen, "the number is shown masked"
    finally:
        pane.close()



def test_login_takes_a_recovery_code_and_is_the_way_in_for_a_security_key(tmp_path):
    """#39: at the authenticator prompt a recovery code is taken too; an account whose only factor
    is a security key (which a terminal cannot use) is asked for one."""
    import httpx

    from test_cli import _start_server
    from test_mfa_webauthn import ENV, enrolled, signed_up
    from webauthn_authenticator import Authenticator

    process, url, log = _start_server(tmp_path, env=ENV)
    try:
        email, password, token = signed_up(url)
        _, aal2 = enrolled(url, token, Authenticator())
        made = httpx.post(f"{url}/recovery-codes", json={}, headers={"Authorization": f"Bearer {aal2}"}, trust_env=False)
        assert made.status_code == 200, made.text
        codes = made.json()["codes"]

        pane = Pane([str(binary_path()), "login", "--email", email, "--url", url, "--password"])
        try:
            pane.wait_for("Password:")
            pane.type(password)
            pane.wait_for("a security key, which a terminal cannot use")
            pane.wait_for("Recovery code:")
            pane.type("zzzzz-zzzzz")
            pane.wait_for("That code is not right")
            pane.type(codes[0])
            pane.wait_for(f"Signed in as {email} with a second factor")
        finally:
            pane.close()

        # With an authenticator app as well, its prompt takes a recovery code.
        app = httpx.post(f"{url}/factors", json={"factor_type": "totp", "friendly_name": "App"},
                         headers={"Authorization": f"Bearer {aal2}"}, trust_env=False)
        assert app.status_code == 200, app.text
        import pyotp
        opened = httpx.post(f"{url}/factors/{app.json()['id']}/challenge", json={},
                            headers={"Authorization": f"Bearer {aal2}"}, trust_env=False).json()
        verified = httpx.post(f"{url}/factors/{app.json()['id']}/verify",
                              json={"challenge_id": opened["id"], "code": pyotp.TOTP(app.json()["totp"]["secret"]).now()},
                              headers={"Authorization": f"Bearer {aal2}"}, trust_env=False)
        assert verified.status_code == 200, verified.text
        pane = Pane([str(binary_path()), "login", "--email", email, "--url", url, "--password"])
        try:
            pane.wait_for("Password:")
            pane.type(password)
            pane.wait_for("Authenticator code (or a recovery code):")
            pane.type(codes[1].upper())
            pane.wait_for(f"Signed in as {email} with a second factor")
        finally:
            pane.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
