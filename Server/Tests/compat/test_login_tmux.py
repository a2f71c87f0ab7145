"""`latchkey login` driven through tmux, as a person would use it."""

import shutil
import subprocess
import time
import uuid

import pytest
import supabase_auth

from conftest import _find_binary as binary_path

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
    client = supabase_auth.SyncGoTrueClient(url=latchkey_server.url, auto_refresh_token=False, persist_session=False)
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
    client = supabase_auth.SyncGoTrueClient(url=latchkey_server.url, auto_refresh_token=False, persist_session=False)
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
        pane.wait_for("Authenticator code:")
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
    client = supabase_auth.SyncGoTrueClient(url=latchkey_server.url, auto_refresh_token=False, persist_session=False)
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

