"""WebAuthn second factors over real HTTP (GoTrue's `/factors` with `factor_type: webauthn`), the
body shapes supabase-js sends, against the suite's software authenticator acting as a security
key. The options are read by python-fido2 (Yubico's WebAuthn library) as a client library would;
a table of hostile answers is refused with GoTrue's errors and changes nothing; two uses of one
assertion race and one wins."""

from __future__ import annotations

import concurrent.futures
import uuid

import httpx
import pytest
from fido2.webauthn import PublicKeyCredentialCreationOptions, PublicKeyCredentialRequestOptions, RegistrationResponse

from test_cli import _start_server
from test_passkeys import claims, post
from test_supabase_admin import SECRET
from webauthn_authenticator import UP, UV, Authenticator, b64url

ENV = {
    "GOTRUE_JWT_SECRET": SECRET,
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_RATE_LIMIT_OTP": "1000",
    "GOTRUE_RATE_LIMIT_VERIFY": "1000",
    "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true",
    "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
    "GOTRUE_WEBAUTHN_RP_ID": "example.com",
    "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Example",
    "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://example.com,https://app.example.com",
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
}

# What supabase-js adds to a WebAuthn factor's challenge and verification: read by neither side.
RP = {"rpId": "example.com", "rpOrigins": ["https://example.com"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mfa-webauthn")
    process, url, log = _start_server(tmp, env=ENV)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def signed_up(url: str) -> tuple[str, str, str]:
    """A new user signed in with a password: (email, password, access token)."""
    email = f"wa-{uuid.uuid4().hex[:10]}@example.com"
    password = "correct horse battery " + uuid.uuid4().hex[:6]
    answer = post(url, "/signup", {"email": email, "password": password})
    assert answer.status_code == 200, answer.text
    return email, password, answer.json()["access_token"]


def signed_in(url: str, email: str, password: str) -> str:
    answer = post(url, "/token?grant_type=password", {"email": email, "password": password})
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


def challenge(url: str, token: str, factor: str) -> dict:
    answer = post(url, f"/factors/{factor}/challenge", {"webauthn": RP}, token=token)
    assert answer.status_code == 200, answer.text
    return answer.json()


def verify(url: str, token: str, factor: str, challenge_id: str, kind: str, credential) -> httpx.Response:
    body = {"challenge_id": challenge_id, "webauthn": {**RP, "type": kind, "credential_response": credential}}
    return post(url, f"/factors/{factor}/verify", body, token=token)


def options(answer: dict) -> dict:
    """The challenge's options in the shape the authenticator takes (the passkeys' `options`)."""
    return {"options": answer["webauthn"]["credential_options"]["publicKey"]}


def enrolled(url: str, token: str, key: Authenticator, name: str = "YubiKey") -> tuple[str, str]:
    """A WebAuthn factor registered with `key`: (factor id, the aal2 access token)."""
    factor = post(url, "/factors", {"factor_type": "webauthn", "friendly_name": name}, token=token)
    assert factor.status_code == 200, factor.text
    factor_id = factor.json()["id"]
    creating = challenge(url, token, factor_id)
    made = verify(url, token, factor_id, creating["id"], "create", key.create(options(creating)))
    assert made.status_code == 200, made.text
    return factor_id, made.json()["access_token"]


def test_a_security_key_becomes_a_second_factor_and_raises_later_sessions(server):
    email, password, token = signed_up(server)
    factor = post(server, "/factors", {"factor_type": "webauthn", "friendly_name": "YubiKey"}, token=token)
    assert factor.status_code == 200, factor.text
    assert set(factor.json()) == {"id", "type", "friendly_name"} and factor.json()["type"] == "webauthn"
    factor_id = factor.json()["id"]

    creating = challenge(server, token, factor_id)
    assert creating["type"] == "webauthn" and creating["webauthn"]["type"] == "create" and creating["expires_at"]
    created = PublicKeyCredentialCreationOptions.from_dict(creating["webauthn"]["credential_options"]["publicKey"])
    assert created.rp.id == "example.com" and created.rp.name == "Example" and len(created.challenge) == 32
    assert created.user.name == email and created.attestation == "none"
    assert created.authenticator_selection.resident_key == "discouraged"
    assert created.authenticator_selection.user_verification == "preferred"
    assert {p.alg for p in created.pub_key_cred_params} == {-7, -8, -257}

    # A security key with no PIN: present, not verified; it counts its uses.
    key = Authenticator(flags=UP, counts=True)
    credential = key.create(options(creating))
    assert RegistrationResponse.from_dict(credential).raw_id == key.credential_id
    made = verify(server, token, factor_id, creating["id"], "create", credential)
    assert made.status_code == 200, made.text
    # The user's first factor: its answer carries recovery codes, once.
    assert len(made.json()["recovery_codes"]) == 10
    raised = claims(made.json()["access_token"])
    assert raised["aal"] == "aal2" and [m["method"] for m in raised["amr"]][-1] == "mfa/webauthn"
    listed = [f for f in made.json()["user"]["factors"] if f["id"] == factor_id]
    assert listed and listed[0]["factor_type"] == "webauthn" and listed[0]["status"] == "verified"

    # A later sign-in is aal1 until the key answers a request for it alone.
    later = signed_in(server, email, password)
    assert claims(later)["aal"] == "aal1"
    requesting = challenge(server, later, factor_id)
    assert requesting["webauthn"]["type"] == "request"
    request = PublicKeyCredentialRequestOptions.from_dict(requesting["webauthn"]["credential_options"]["publicKey"])
    assert request.rp_id == "example.com" and [c.id for c in request.allow_credentials] == [key.credential_id]
    assert request.user_verification == "preferred"
    answer = verify(server, later, factor_id, requesting["id"], "request", key.get(options(requesting)))
    assert answer.status_code == 200, answer.text
    assert claims(answer.json()["access_token"])["aal"] == "aal2"


def hostile(key: Authenticator, stranger: Authenticator):
    """Assertions a verified factor must refuse, each made against a fresh challenge's options."""
    return {
        "another origin": lambda o: key.get(o, origin="https://evil.example.net"),
        "another relying party": lambda o: key.get(o, rp_id="evil.example.net"),
        "user not present": lambda o: key.get(o, flags=UV),
        "a spoiled signature": lambda o: key.get(o, spoil_signature=True),
        "a counter that did not move": lambda o: key.get(o, count=1),
        "another challenge": lambda o: key.get(o, challenge=b64url(b"\x07" * 32)),
        "a creation answer's client data": lambda o: key.get(o, kind="webauthn.create"),
        "another key": lambda o: stranger.get(o),
    }


@pytest.mark.parametrize("name", list(hostile(Authenticator(), Authenticator())))
def test_hostile_assertions_are_wrong_answers_and_change_nothing(server, name):
    email, password, token = signed_up(server)
    key = Authenticator(flags=UP, counts=True)
    factor_id, _ = enrolled(server, token, key)
    key.counter = 5  # the key has been used since
    later = signed_in(server, email, password)
    spoil = hostile(key, Authenticator(flags=UP))[name]
    requesting = challenge(server, later, factor_id)
    answer = verify(server, later, factor_id, requesting["id"], "request", spoil(options(requesting)))
    assert answer.status_code == 422, answer.text
    assert answer.json()["error_code"] == "mfa_verification_failed" and answer.json()["msg"] == "WebAuthn verification failed"
    # Nothing was raised, and the key's own next answer still verifies.
    user = httpx.get(f"{server}/user", headers={"Authorization": f"Bearer {later}"}, trust_env=False)
    assert user.status_code == 200
    fresh = challenge(server, later, factor_id)
    good = verify(server, later, factor_id, fresh["id"], "request", key.get(options(fresh)))
    assert good.status_code == 200, good.text


def test_answers_that_are_not_credentials_are_400_as_gotrue(server):
    _, _, token = signed_up(server)
    factor = post(server, "/factors", {"factor_type": "webauthn"}, token=token).json()["id"]
    creating = challenge(server, token, factor)
    key = Authenticator()
    table = [
        ({"code": "123456"}, "webauthn is required to verify a WebAuthn factor"),
        ({"webauthn": {"type": "get", "credential_response": {}}}, "WebAuthn type must be create or request"),
        ({"webauthn": {"type": "create"}}, "webauthn.credential_response is required"),
        ({"webauthn": {"type": "request", "credential_response": key.create(options(creating))}},
         "webauthn.type must be create for this factor"),
        ({"webauthn": {"type": "create", "credential_response": {"id": "x", "rawId": "x", "type": "public-key"}}},
         "Invalid credential response"),
    ]
    for body, message in table:
        answer = post(server, f"/factors/{factor}/verify", {"challenge_id": creating["id"], **body}, token=token)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["msg"] == message
    for body in ({"challenge_id": creating["id"], "webauthn": "a string"},
                 {"challenge_id": creating["id"], "webauthn": {"type": "create", "credential_response": [1, 2]}}):
        answer = post(server, f"/factors/{factor}/verify", body, token=token)
        assert answer.status_code == 400, answer.text
    # Nothing counted or spent: the real answer verifies.
    made = verify(server, token, factor, creating["id"], "create", key.create(options(creating)))
    assert made.status_code == 200, made.text


def test_a_key_is_one_factors_and_a_totp_factor_takes_no_credential(server):
    _, _, token = signed_up(server)
    key = Authenticator(flags=UP)
    first, aal2 = enrolled(server, token, key)
    second = post(server, "/factors", {"factor_type": "webauthn", "friendly_name": "spare"}, token=aal2)
    assert second.status_code == 200, second.text
    creating = challenge(server, aal2, second.json()["id"])
    excluded = creating["webauthn"]["credential_options"]["publicKey"]["excludeCredentials"]
    assert [c["id"] for c in excluded] == [b64url(key.credential_id)]
    again = verify(server, aal2, second.json()["id"], creating["id"], "create", key.create(options(creating)))
    assert again.status_code == 422 and again.json()["error_code"] == "webauthn_credential_exists"
    totp = post(server, "/factors", {"factor_type": "totp", "friendly_name": "app"}, token=aal2).json()["id"]
    opened = challenge(server, aal2, totp)
    wrong = verify(server, aal2, totp, opened["id"], "create", key.create(options(creating)))
    assert wrong.status_code == 400 and wrong.json()["msg"] == "code is required to verify a totp factor"


def test_of_two_uses_of_one_assertion_one_wins(server):
    email, password, token = signed_up(server)
    key = Authenticator(flags=UP | UV, counts=True)
    factor_id, _ = enrolled(server, token, key)
    later = signed_in(server, email, password)
    requesting = challenge(server, later, factor_id)
    assertion = key.get(options(requesting))
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda _: verify(server, later, factor_id, requesting["id"], "request", assertion), range(6)))
    codes = sorted(a.status_code for a in answers)
    assert codes.count(200) == 1, [a.text for a in answers]
    assert all(a.json()["error_code"] in {"mfa_challenge_expired", "mfa_verification_failed"} for a in answers if a.status_code != 200)


def test_webauthn_factors_are_off_unless_enabled(tmp_path):
    """GoTrue's default: both switches off."""
    process, url, log = _start_server(tmp_path, env={k: v for k, v in ENV.items() if "WEB_AUTHN" not in k})
    try:
        _, _, token = signed_up(url)
        answer = post(url, "/factors", {"factor_type": "webauthn"}, token=token)
        assert answer.status_code == 422 and answer.json()["error_code"] == "mfa_webauthn_enroll_not_enabled"
        other = post(url, "/factors", {"factor_type": "passkey"}, token=token)
        assert other.status_code == 400 and other.json()["msg"] == "factor_type needs to be totp, phone, or webauthn"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
