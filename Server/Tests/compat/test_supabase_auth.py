"""Drive a real Latchkey server with the official Python client, supabase-auth 2.34.1.

Every test uses its own address (uuid) so the tests are independent of order.
The server runs with email confirmation on (the default), so a fresh sign-up
gets no session until the code from the dev mailbox is verified.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Callable, Iterator

import pytest

pytest.importorskip("supabase_auth")

from supabase_auth import SyncGoTrueClient  # noqa: E402
from supabase_auth.errors import AuthApiError  # noqa: E402
from supabase_auth.types import Session  # noqa: E402

from conftest import supabase_client  # noqa: E402


# --------------------------------------------------------------------------- helpers


def new_email() -> str:
    """A unique address with upper-case letters, to check that the server lower-cases it."""
    return f"Compat.{uuid.uuid4().hex[:12]}@Example.COM"


def new_password() -> str:
    """At least 15 characters and not in any common-password list."""
    return "correct horse battery staple " + uuid.uuid4().hex[:6]


@pytest.fixture
def make_client(latchkey_server) -> Iterator[Callable[[], SyncGoTrueClient]]:
    clients: list[SyncGoTrueClient] = []

    def factory() -> SyncGoTrueClient:
        client = supabase_client(latchkey_server.url)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()


@dataclass
class ConfirmedUser:
    email: str  # lower-cased, as the server stores it
    password: str
    user_id: str
    client: SyncGoTrueClient  # holds the session returned by verify_otp
    session: Session


def sign_up_and_confirm(server, client: SyncGoTrueClient) -> ConfirmedUser:
    raw_email = new_email()
    email = raw_email.lower()
    password = new_password()
    signed_up = client.sign_up({"email": raw_email, "password": password})
    assert signed_up.user is not None
    assert signed_up.session is None
    code = server.latest_code(email)
    verified = client.verify_otp({"email": email, "token": code, "type": "signup"})
    assert verified.session is not None, "verify_otp(type=signup) returned no session"
    return ConfirmedUser(
        email=email,
        password=password,
        user_id=verified.session.user.id,
        client=client,
        session=verified.session,
    )


@pytest.fixture
def confirmed_user(latchkey_server, make_client) -> ConfirmedUser:
    return sign_up_and_confirm(latchkey_server, make_client())


def assert_usable_session(session: Session | None) -> Session:
    assert session is not None, "expected a session"
    assert session.access_token, "session has no access_token"
    assert session.refresh_token, "session has no refresh_token"
    assert session.token_type.lower() == "bearer"
    assert session.expires_in > 0
    assert session.expires_at is not None and session.expires_at > time.time()
    return session


# --------------------------------------------------------------------------- 1. sign-up


def test_sign_up_returns_user_without_session(latchkey_server, make_client):
    client = make_client()
    raw_email = new_email()

    resp = client.sign_up(
        {
            "email": raw_email,
            "password": new_password(),
            "options": {"data": {"name": "Ada"}},
        }
    )

    assert resp.session is None, "email confirmation is on: sign-up must not return a session"
    assert resp.user is not None
    assert resp.user.email == raw_email.lower()
    assert resp.user.user_metadata.get("name") == "Ada"
    assert resp.user.email_confirmed_at is None
    assert client.get_session() is None


# --------------------------------------------------------------------------- 2. confirm


def test_sign_up_confirmed_with_mailbox_code(latchkey_server, make_client):
    client = make_client()
    raw_email = new_email()
    email = raw_email.lower()
    signed_up = client.sign_up({"email": raw_email, "password": new_password()})
    assert signed_up.user is not None and signed_up.session is None

    code = latchkey_server.latest_code(email)  # polls until the message is there
    newest = latchkey_server.mailbox(email)[0]
    assert any(email in to.lower() for to in newest["to"]), newest["to"]

    resp = client.verify_otp({"email": email, "token": code, "type": "signup"})

    session = assert_usable_session(resp.session)
    assert session.user.email == email
    assert session.user.email_confirmed_at is not None
    assert session.user.id == signed_up.user.id
    assert resp.user is not None and resp.user.email_confirmed_at is not None
    # verify_otp stores the session in the client.
    assert client.get_session() is not None


# --------------------------------------------------------------------------- 3. password sign-in


def test_sign_in_with_password(confirmed_user, make_client):
    client = make_client()

    resp = client.sign_in_with_password(
        {"email": confirmed_user.email, "password": confirmed_user.password}
    )

    session = assert_usable_session(resp.session)
    assert session.user.id == confirmed_user.user_id
    assert session.user.email == confirmed_user.email
    assert resp.user is not None and resp.user.id == confirmed_user.user_id


# --------------------------------------------------------------------------- 4. wrong password


def test_wrong_password_is_invalid_credentials(confirmed_user, make_client):
    client = make_client()

    with pytest.raises(AuthApiError) as excinfo:
        client.sign_in_with_password(
            {"email": confirmed_user.email, "password": confirmed_user.password + "x"}
        )

    err = excinfo.value
    assert err.code == "invalid_credentials"
    assert err.message == "Invalid login credentials"
    assert err.status == 400
    assert client.get_session() is None


# --------------------------------------------------------------------------- 5. email OTP


def test_email_otp_sign_in_and_code_reuse(latchkey_server, confirmed_user, make_client):
    client = make_client()
    email = confirmed_user.email
    already_seen = latchkey_server.message_ids(email)

    sent = client.sign_in_with_otp({"email": email})
    assert sent.session is None and sent.user is None

    code = latchkey_server.latest_code(email, exclude=already_seen)
    resp = client.verify_otp({"email": email, "token": code, "type": "email"})

    session = assert_usable_session(resp.session)
    assert session.user.id == confirmed_user.user_id

    with pytest.raises(AuthApiError) as excinfo:
        make_client().verify_otp({"email": email, "token": code, "type": "email"})
    err = excinfo.value
    assert err.code == "otp_expired"
    assert err.status == 403
    assert err.message == "Token has expired or is invalid"


# --------------------------------------------------------------------------- 6. refresh


def test_refresh_session_rotates_tokens(confirmed_user):
    client = confirmed_user.client
    old = confirmed_user.session

    # Access tokens carry second-resolution iat/exp and no jti; wait so the
    # refreshed token is guaranteed to differ byte-for-byte.
    time.sleep(1.1)
    first = client.refresh_session()

    new = assert_usable_session(first.session)
    assert new.access_token != old.access_token
    assert new.refresh_token != old.refresh_token
    assert new.user.id == confirmed_user.user_id
    assert client.get_session() is not None
    assert client.get_session().access_token == new.access_token

    # The refreshed session works.
    me = client.get_user()
    assert me is not None and me.user.id == confirmed_user.user_id
    me = client.get_user(jwt=new.access_token)
    assert me is not None and me.user.id == confirmed_user.user_id

    # The explicit-token form rotates again.
    second = client.refresh_session(new.refresh_token)
    newer = assert_usable_session(second.session)
    assert newer.refresh_token != new.refresh_token
    assert newer.refresh_token != old.refresh_token
    me = client.get_user()
    assert me is not None and me.user.id == confirmed_user.user_id
    # Rejection of a reused refresh token after the reuse interval is
    # time-based and deliberately not exercised here.


# --------------------------------------------------------------------------- 7. update user


def test_update_user_metadata_and_password(confirmed_user, make_client):
    client = confirmed_user.client

    merged = client.update_user({"data": {"name": "Grace", "team": "x"}})
    assert merged.user.user_metadata.get("name") == "Grace"
    assert merged.user.user_metadata.get("team") == "x"

    deleted = client.update_user({"data": {"team": None}})
    assert "team" not in deleted.user.user_metadata, "a null value must delete the key"
    assert deleted.user.user_metadata.get("name") == "Grace", "other keys must be kept"

    fetched = client.get_user()
    assert fetched is not None
    assert fetched.user.user_metadata.get("name") == "Grace"
    assert "team" not in fetched.user.user_metadata

    new_password_value = new_password()
    updated = client.update_user({"password": new_password_value})
    assert updated.user.id == confirmed_user.user_id

    resp = make_client().sign_in_with_password(
        {"email": confirmed_user.email, "password": new_password_value}
    )
    assert_usable_session(resp.session)
    assert resp.session.user.id == confirmed_user.user_id

    with pytest.raises(AuthApiError) as excinfo:
        make_client().sign_in_with_password(
            {"email": confirmed_user.email, "password": confirmed_user.password}
        )
    assert excinfo.value.code == "invalid_credentials"


# --------------------------------------------------------------------------- 8. sign out


def test_get_user_then_global_sign_out(confirmed_user):
    client = confirmed_user.client
    old_access = confirmed_user.session.access_token
    old_refresh = confirmed_user.session.refresh_token

    me = client.get_user()
    assert me is not None
    assert me.user.id == confirmed_user.user_id
    assert me.user.email == confirmed_user.email

    client.sign_out({"scope": "global"})
    assert client.get_session() is None

    with pytest.raises(AuthApiError) as excinfo:
        client.get_user(jwt=old_access)
    err = excinfo.value
    assert err.code == "session_not_found"
    assert err.status == 403

    # The revoked session's refresh token is dead too.
    with pytest.raises(AuthApiError):
        client.refresh_session(old_refresh)


# --------------------------------------------------------------------------- 9. duplicate sign-up


def test_duplicate_sign_up_of_confirmed_address_is_obfuscated(confirmed_user, make_client):
    client = make_client()

    resp = client.sign_up({"email": confirmed_user.email, "password": new_password()})

    assert resp.session is None
    assert resp.user is not None, "duplicate sign-up must return a user object, not an error"
    assert resp.user.identities == []
    assert resp.user.id != confirmed_user.user_id

    # The real account is untouched: its password still works.
    again = make_client().sign_in_with_password(
        {"email": confirmed_user.email, "password": confirmed_user.password}
    )
    assert_usable_session(again.session)
    assert again.session.user.id == confirmed_user.user_id


# --------------------------------------------------------------------------- 10. reset and email change


def test_reset_password_for_email_then_update(latchkey_server, confirmed_user, make_client):
    before = latchkey_server.message_ids(confirmed_user.email)
    make_client().reset_password_for_email(confirmed_user.email)
    code = latchkey_server.latest_code(confirmed_user.email, exclude=before)
    recovering = make_client()
    verified = recovering.verify_otp({"email": confirmed_user.email, "token": code, "type": "recovery"})
    assert_usable_session(verified.session)
    fresh = new_password()
    recovering.update_user({"password": fresh})
    resp = make_client().sign_in_with_password({"email": confirmed_user.email, "password": fresh})
    assert_usable_session(resp.session)
    # The session the user had before the reset is over.
    with pytest.raises(AuthApiError):
        confirmed_user.client.get_user()


def test_secure_email_change_through_both_addresses(latchkey_server, confirmed_user, make_client):
    client = confirmed_user.client
    target = new_email().lower()
    before = latchkey_server.message_ids(confirmed_user.email)
    pending = client.update_user({"email": target})
    assert pending.user.email == confirmed_user.email
    assert pending.user.new_email == target

    new_code = latchkey_server.latest_code(target)
    current_code = latchkey_server.latest_code(confirmed_user.email, exclude=before)
    halfway = make_client().verify_otp({"email": target, "token": new_code, "type": "email_change"})
    assert halfway.session is None  # the client decoded GoTrue's {"msg", "code": "200"}
    done = make_client().verify_otp(
        {"email": confirmed_user.email, "token": current_code, "type": "email_change"}
    )
    assert_usable_session(done.session)
    assert done.session.user.email == target
    resp = make_client().sign_in_with_password({"email": target, "password": confirmed_user.password})
    assert_usable_session(resp.session)


# --------------------------------------------------------------------------- MFA


def test_phone_mfa_with_supabase_py(latchkey_server, confirmed_user, make_client):
    """supabase-py's phone factor calls (#39): enrol, challenge by SMS and WhatsApp (the codes in the
    dev mailbox, as no SMS provider is set), verify to aal2 with GoTrue's `mfa/phone` method, the
    newest code only, a wrong one refused with GoTrue's code, one verified factor per number."""
    import random
    client = confirmed_user.client
    number = "4477009" + "".join(random.choice("0123456789") for _ in range(5))
    enrolled = client.mfa.enroll({"factor_type": "phone", "phone": "+" + number})
    assert enrolled.type == "phone" and enrolled.phone == "+" + number and enrolled.friendly_name == ""
    [factor] = client.mfa.list_factors().all
    assert factor.factor_type == "phone" and factor.status == "unverified"
    assert factor.phone.endswith(number[-4:]) and number[:-4] not in factor.phone, "the list shows the number masked"

    seen = latchkey_server.message_ids(number)
    first = client.mfa.challenge({"factor_id": enrolled.id, "channel": "whatsapp"})
    first_code = latchkey_server.latest_code(number, exclude=seen)
    assert latchkey_server.mailbox(number)[0]["subject"] == "WhatsApp"
    time.sleep(1.1)  # GOTRUE_MFA_PHONE_MAX_FREQUENCY
    seen = latchkey_server.message_ids(number)
    second = client.mfa.challenge({"factor_id": enrolled.id})
    code = latchkey_server.latest_code(number, exclude=seen)
    # The first challenge went with its code when the second was sent.
    try:
        client.mfa.verify({"factor_id": enrolled.id, "challenge_id": first.id, "code": first_code})
        raise AssertionError("an earlier challenge's code was accepted")
    except Exception as error:
        assert getattr(error, "code", None) == "mfa_challenge_expired", error
    wrong = "000000" if code != "000000" else "111111"
    try:
        client.mfa.verify({"factor_id": enrolled.id, "challenge_id": second.id, "code": wrong})
        raise AssertionError("a wrong code was accepted")
    except Exception as error:
        assert getattr(error, "code", None) == "mfa_verification_failed", error
    client.mfa.verify({"factor_id": enrolled.id, "challenge_id": second.id, "code": code})
    level = client.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal2"
    assert [m.method for m in level.current_authentication_methods][-1] == "mfa/phone"
    assert [f.status for f in client.mfa.list_factors().all] == ["verified"]
    try:
        client.mfa.enroll({"factor_type": "phone", "phone": "+" + number})
        raise AssertionError("a second factor for a verified number was enrolled")
    except Exception as error:
        assert getattr(error, "code", None) == "mfa_verified_factor_exists", error
    assert client.mfa.unenroll({"factor_id": enrolled.id}).id == enrolled.id


def test_totp_mfa_with_an_authenticator_library(latchkey_server, confirmed_user, make_client):
    """supabase-py's `mfa` API end to end, with codes from pyotp as an authenticator app makes them."""
    import pyotp

    client = confirmed_user.client
    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "pyotp", "issuer": "Latchkey Tests"})
    assert enrolled.type == "totp" and enrolled.friendly_name == "pyotp"
    assert enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,<svg")
    # The URI is what authenticator apps read: pyotp parses it and agrees on the secret.
    parsed = pyotp.parse_uri(enrolled.totp.uri)
    assert parsed.secret == enrolled.totp.secret and parsed.issuer == "Latchkey Tests"
    assert parsed.name == confirmed_user.email
    import base64
    assert len(base64.b32decode(enrolled.totp.secret + "=" * (-len(enrolled.totp.secret) % 8))) >= 20  # 160 bits
    # The QR code, read by a real decoder, carries the URI.
    from pathlib import Path
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
    from qr_decode import decode_svg
    assert decode_svg(enrolled.totp.qr_code.split(",", 1)[1]) == enrolled.totp.uri

    factors = client.mfa.list_factors()
    assert [f.status for f in factors.all] == ["unverified"] and factors.totp == []
    from test_cli import run_cli
    shown = run_cli("users", "show", "--data-dir", str(latchkey_server.data_dir), confirmed_user.email)
    assert "totp pyotp (unverified)" in shown.stdout, shown.stdout + shown.stderr

    totp = pyotp.TOTP(enrolled.totp.secret)
    used = totp.now()
    verified = client.mfa.challenge_and_verify({"factor_id": enrolled.id, "code": used})
    assert verified.access_token
    level = client.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal2" and level.next_level == "aal2"
    assert [m.method for m in level.current_authentication_methods][-1] == "totp"

    # A fresh password sign-in is aal1 and knows a second step is due.
    other = make_client()
    other.sign_in_with_password({"email": confirmed_user.email, "password": confirmed_user.password})
    level = other.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal1" and level.next_level == "aal2"
    challenge = other.mfa.challenge({"factor_id": enrolled.id})
    # The code just used is spent; a wrong one is refused with GoTrue's code.
    # (`used`, not `totp.now()`: the time step may have moved on since.)
    for code in [used, "000000" if used != "000000" else "111111"]:
        try:
            other.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": code})
            raise AssertionError("a spent or wrong code was accepted")
        except Exception as error:  # AuthApiError
            assert getattr(error, "code", None) == "mfa_verification_failed", error
    # The next time step's code works (within the ±1 step window).
    other.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp.at(time.time() + 30)})
    assert other.mfa.get_authenticator_assurance_level().current_level == "aal2"

    removed = other.mfa.unenroll({"factor_id": enrolled.id})
    assert removed.id == enrolled.id
    assert other.mfa.list_factors().all == []
