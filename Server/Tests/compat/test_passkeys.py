"""Passkeys over real HTTP (GoTrue's `/passkeys/*`), against a software authenticator: the
ceremonies with every key type and attestation Latchkey accepts, username-less sign-in, the
owner's and the operator's management, and a table of hostile answers — each refused with
GoTrue's error and nothing stored."""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import time
import uuid

import httpx
import pytest

from test_cli import _start_server
from test_supabase_admin import SECRET, service_headers
from webauthn_authenticator import BE, BS, UP, UV, Authenticator, b64url, cbor

ENV = {
    "GOTRUE_JWT_SECRET": SECRET,
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
    "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS": "1000",
    "GOTRUE_RATE_LIMIT_OTP": "1000",
    "GOTRUE_RATE_LIMIT_PASSKEY": "1000",
    "GOTRUE_PASSKEY_ENABLED": "true",
    "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER": "3",
    "GOTRUE_WEBAUTHN_RP_ID": "example.com",
    "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Example",
    "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://example.com,https://app.example.com,android:apk-key-hash:c2lnbmluZy1rZXk",
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("passkeys")
    process, url, log = _start_server(tmp, env=ENV)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def post(url: str, path: str, body=None, token: str | None = None, **kwargs) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{url}{path}", json=body if body is not None else {}, headers=headers, trust_env=False, timeout=20,
                      **kwargs)


def new_user(url: str) -> tuple[str, str]:
    """A confirmed user signed in with a password: (id, access token)."""
    email = f"pk-{uuid.uuid4().hex[:10]}@example.com"
    answer = post(url, "/signup", {"email": email, "password": "correct horse battery " + uuid.uuid4().hex[:6]})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return body["user"]["id"], body["access_token"]


def register(url: str, token: str, device: Authenticator, **spoil) -> httpx.Response:
    options = post(url, "/passkeys/registration/options", token=token)
    assert options.status_code == 200, options.text
    answer = options.json()
    return post(url, "/passkeys/registration/verify",
                {"challenge_id": answer["challenge_id"], "credential": device.create(answer, **spoil)}, token=token)


def sign_in(url: str, device: Authenticator, **spoil) -> httpx.Response:
    options = post(url, "/passkeys/authentication/options")
    assert options.status_code == 200, options.text
    answer = options.json()
    return post(url, "/passkeys/authentication/verify",
                {"challenge_id": answer["challenge_id"], "credential": device.get(answer, **spoil)})


def listed(url: str, token: str) -> list:
    answer = httpx.get(f"{url}/passkeys", headers={"Authorization": f"Bearer {token}"}, trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_a_passkey_registers_and_signs_in_without_a_username(server):
    user_id, token = new_user(server)
    options = post(server, "/passkeys/registration/options", token=token)
    assert options.status_code == 200
    answer = options.json()
    assert set(answer) == {"challenge_id", "options", "expires_at"}
    shown = answer["options"]
    assert shown["rp"] == {"name": "Example", "id": "example.com"}
    assert shown["user"]["id"] == b64url(user_id.encode()) and shown["user"]["name"].startswith("pk-")
    assert shown["authenticatorSelection"] == {"residentKey": "required", "userVerification": "required"}
    assert shown["attestation"] == "none" and "excludeCredentials" not in shown
    assert {p["alg"] for p in shown["pubKeyCredParams"]} == {-7, -8, -257}
    assert 290 <= answer["expires_at"] - time.time() <= 301

    device = Authenticator()
    made = post(server, "/passkeys/registration/verify",
                {"challenge_id": answer["challenge_id"], "credential": device.create(answer)}, token=token)
    assert made.status_code == 200, made.text
    body = made.json()
    assert body["friendly_name"] == "Passkey" and body["backed_up"] is True and body["backup_eligible"] is True
    again = post(server, "/passkeys/registration/options", token=token).json()
    assert again["options"]["excludeCredentials"] == [{"type": "public-key", "id": b64url(device.credential_id)}]

    session = sign_in(server, device)
    assert session.status_code == 200, session.text
    signed = session.json()
    assert signed["user"]["id"] == user_id and signed["token_type"] == "bearer" and signed["refresh_token"]
    token_claims = claims(signed["access_token"])
    assert token_claims["aal"] == "aal1" and [m["method"] for m in token_claims["amr"]] == ["passkey"]
    me = httpx.get(f"{server}/user", headers={"Authorization": f"Bearer {signed['access_token']}"}, trust_env=False)
    assert me.status_code == 200 and me.json()["id"] == user_id

    items = listed(server, token)
    assert len(items) == 1 and items[0]["id"] == body["id"] and items[0]["last_used_at"]
    assert not {"credential_id", "public_key"} & set(items[0])
    renamed = httpx.patch(f"{server}/passkeys/{body['id']}", json={"friendly_name": "Ada's phone"},
                          headers={"Authorization": f"Bearer {token}"}, trust_env=False)
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "Ada's phone"
    too_long = httpx.patch(f"{server}/passkeys/{body['id']}", json={"friendly_name": "é" * 61},
                           headers={"Authorization": f"Bearer {token}"}, trust_env=False)
    assert too_long.status_code == 400 and too_long.json()["error_code"] == "validation_failed"
    gone = httpx.delete(f"{server}/passkeys/{body['id']}", headers={"Authorization": f"Bearer {token}"}, trust_env=False)
    assert gone.status_code == 204 and listed(server, token) == []
    assert sign_in(server, device).status_code == 400


@pytest.mark.parametrize("alg,fmt,origin", [
    (-7, "packed", "https://example.com"),
    (-8, "none", "https://app.example.com"),
    (-8, "packed", "https://example.com"),
    (-257, "none", "https://example.com"),
    (-257, "packed", "android:apk-key-hash:c2lnbmluZy1rZXk"),
])
def test_every_key_type_and_self_attestation(server, alg, fmt, origin):
    _, token = new_user(server)
    device = Authenticator(alg=alg, origin=origin, flags=UP | UV, counts=True)
    made = register(server, token, device, fmt=fmt)
    assert made.status_code == 200, made.text
    assert made.json()["backed_up"] is False
    for _ in range(2):
        assert sign_in(server, device).status_code == 200


REGISTRATION_REFUSALS = {
    "a sign-in's client data": dict(kind="webauthn.get"),
    "another challenge": dict(challenge=b64url(os.urandom(32))),
    "an origin off the list": dict(origin="https://evil.example"),
    "a look-alike origin": dict(origin="https://example.com.evil.test"),
    "the origin with a path": dict(origin="https://example.com/login"),
    "a cross-origin frame": dict(client_extra={"crossOrigin": True}),
    "another relying party's hash": dict(rp_id="evil.example"),
    "no user presence": dict(flags=UV | BE | BS),
    "no user verification": dict(flags=UP | BE | BS),
    "backed up, not eligible": dict(flags=UP | UV | BS),
    "fido-u2f attestation": dict(fmt="fido-u2f", statement={"sig": b"x", "x5c": [b"cert"]}),
    "tpm attestation": dict(fmt="tpm", statement={}),
    "packed with a certificate chain": dict(fmt="packed", statement={"alg": -7, "sig": b"\x30\x00", "x5c": [b"cert"]}),
    "packed with a bad signature": dict(fmt="packed", statement={"alg": -7, "sig": os.urandom(70)}),
    "packed with another algorithm": dict(fmt="packed", statement={"alg": -257, "sig": os.urandom(256)}),
    "none with a statement": dict(fmt="none", statement={"sig": b"x"}),
    "a truncated attestation object": dict(object_bytes=cbor({"fmt": "none", "attStmt": {}, "authData": os.urandom(80)})[:60]),
    "random bytes": dict(object_bytes=os.urandom(300)),
    "an indefinite-length map": dict(object_bytes=b"\xbf\x63fmt\x64none\xff"),
    "a 20 KB attestation object": dict(object_bytes=cbor({"fmt": "none", "attStmt": {}, "authData": os.urandom(20_000)})),
}


@pytest.mark.parametrize("name", sorted(REGISTRATION_REFUSALS))
def test_hostile_registrations_are_refused_and_store_nothing(server, name):
    _, token = new_user(server)
    answer = register(server, token, Authenticator(), **REGISTRATION_REFUSALS[name])
    assert answer.status_code == 400, answer.text
    assert answer.json()["error_code"] == "webauthn_verification_failed"
    assert listed(server, token) == []


def test_malformed_registrations_answer_as_gotrue(server):
    _, token = new_user(server)
    device = Authenticator()
    options = post(server, "/passkeys/registration/options", token=token).json()
    credential = device.create(options)
    cases = [
        ({"credential": credential}, "challenge_id is required"),
        ({"challenge_id": options["challenge_id"]}, "credential is required"),
        ({"challenge_id": "not-a-uuid", "credential": credential}, "challenge_id must be a valid UUID"),
        ({"challenge_id": str(uuid.uuid4()), "credential": credential}, "Challenge not found or already used"),
    ]
    for body, message in cases:
        answer = post(server, "/passkeys/registration/verify", body, token=token)
        assert answer.status_code == 400 and answer.json()["msg"] == message, (body, answer.text)
    not_json = httpx.post(f"{server}/passkeys/registration/verify", content=b"{", trust_env=False,
                          headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    assert not_json.status_code == 400 and not_json.json()["error_code"] == "bad_json"
    # A credential that is not base64url, then the same challenge again: it was spent.
    broken = dict(credential, response={**credential["response"], "attestationObject": "!!!"})
    answer = post(server, "/passkeys/registration/verify", {"challenge_id": options["challenge_id"], "credential": broken},
                  token=token)
    assert answer.status_code == 400 and answer.json()["msg"] == "Invalid credential response"
    answer = post(server, "/passkeys/registration/verify", {"challenge_id": options["challenge_id"], "credential": credential},
                  token=token)
    assert answer.json()["error_code"] == "webauthn_challenge_not_found"
    # Another user's challenge is not found either.
    _, other = new_user(server)
    theirs = post(server, "/passkeys/registration/options", token=other).json()
    answer = post(server, "/passkeys/registration/verify",
                  {"challenge_id": theirs["challenge_id"], "credential": device.create(theirs)}, token=token)
    assert answer.json()["error_code"] == "webauthn_challenge_not_found"
    assert listed(server, token) == []


def test_a_credential_belongs_to_one_user_and_the_cap_holds(server):
    _, first = new_user(server)
    device = Authenticator()
    assert register(server, first, device).status_code == 200
    _, second = new_user(server)
    taken = register(server, second, device)
    assert taken.status_code == 422 and taken.json()["error_code"] == "webauthn_credential_exists"
    # Three per user here; racing registrations stop at the cap.
    options = [post(server, "/passkeys/registration/options", token=second).json() for _ in range(3)]
    for _ in range(2):
        assert register(server, second, Authenticator()).status_code == 200
    devices = [Authenticator() for _ in options]
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        answers = list(pool.map(
            lambda pair: post(server, "/passkeys/registration/verify",
                              {"challenge_id": pair[0]["challenge_id"], "credential": pair[1].create(pair[0])}, token=second),
            zip(options, devices)))
    assert sorted(a.status_code for a in answers) == [200, 422, 422]
    assert len(listed(server, second)) == 3
    capped = post(server, "/passkeys/registration/options", token=second)
    assert capped.status_code == 422 and capped.json()["error_code"] == "too_many_passkeys"


def test_hostile_sign_ins_are_refused(server):
    user_id, token = new_user(server)
    device = Authenticator(counts=True, flags=UP | UV)
    assert register(server, token, device).status_code == 200
    assert sign_in(server, device).status_code == 200
    refusals = {
        "a bad signature": dict(spoil_signature=True),
        "a counter that went back": dict(count=1),
        "another user's handle": dict(user_handle=b64url(str(uuid.uuid4()).encode())),
        "no user verification": dict(flags=UP),
        "no user presence": dict(flags=UV),
        "another relying party": dict(rp_id="evil.example"),
        "an origin off the list": dict(origin="https://evil.example"),
        "a registration's client data": dict(kind="webauthn.create"),
        "another challenge": dict(challenge=b64url(os.urandom(32))),
        "backed up, not eligible": dict(flags=UP | UV | BS),
    }
    for name, spoil in refusals.items():
        answer = sign_in(server, device, **spoil)
        assert answer.status_code == 400, (name, answer.text)
        assert answer.json()["error_code"] == "webauthn_verification_failed", name
    stranger = Authenticator()
    stranger.user_handle = b64url(user_id.encode())
    assert sign_in(server, stranger).json()["error_code"] == "webauthn_verification_failed"
    # One assertion sent eight times at once: one session.
    options = post(server, "/passkeys/authentication/options").json()
    body = {"challenge_id": options["challenge_id"], "credential": device.get(options)}
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: post(server, "/passkeys/authentication/verify", body), range(8)))
    assert sorted(a.status_code for a in answers) == [200] + [400] * 7
    assert {a.json()["error_code"] for a in answers if a.status_code == 400} == {"webauthn_challenge_not_found"}


def test_anonymous_users_cannot_register_and_a_ban_stops_sign_in(server):
    anonymous = post(server, "/signup", {})
    assert anonymous.status_code == 200, anonymous.text
    refused = post(server, "/passkeys/registration/options", token=anonymous.json()["access_token"])
    assert refused.status_code == 403 and refused.json()["error_code"] == "no_authorization"
    no_token = post(server, "/passkeys/registration/options")
    assert no_token.status_code == 401

    user_id, token = new_user(server)
    device = Authenticator()
    assert register(server, token, device).status_code == 200
    banned = httpx.put(f"{server}/admin/users/{user_id}", json={"ban_duration": "1h"}, headers=service_headers(),
                       trust_env=False)
    assert banned.status_code == 200, banned.text
    answer = sign_in(server, device)
    assert answer.status_code == 403 and answer.json()["error_code"] == "user_banned"


def test_an_operator_lists_and_removes_a_users_passkeys(server):
    user_id, token = new_user(server)
    device = Authenticator()
    made = register(server, token, device).json()
    listed_by_admin = httpx.get(f"{server}/admin/users/{user_id}/passkeys", headers=service_headers(), trust_env=False)
    assert listed_by_admin.status_code == 200 and [p["id"] for p in listed_by_admin.json()] == [made["id"]]
    for bad in [f"/admin/users/{user_id}/passkeys/{uuid.uuid4()}", f"/admin/users/{user_id}/passkeys/nope"]:
        answer = httpx.delete(f"{server}{bad}", headers=service_headers(), trust_env=False)
        assert answer.status_code == 404 and answer.json()["msg"] == "Passkey not found"
    assert httpx.get(f"{server}/admin/users/nope/passkeys", headers=service_headers(), trust_env=False).status_code == 404
    user_token = httpx.get(f"{server}/admin/users/{user_id}/passkeys", headers={"Authorization": f"Bearer {token}"},
                           trust_env=False)
    assert user_token.status_code == 403
    removed = httpx.delete(f"{server}/admin/users/{user_id}/passkeys/{made['id']}", headers=service_headers(), trust_env=False)
    assert removed.status_code == 204
    assert sign_in(server, device).status_code == 400
    audit = httpx.get(f"{server}/admin/audit", params={"user_id": user_id, "action": "passkey_deleted"},
                      headers=service_headers(), trust_env=False).json()
    assert len(audit) == 1 and audit[0]["payload"]["actor_username"] == "service_role", audit


def test_challenges_expire_and_sign_in_challenges_are_rate_limited(tmp_path):
    # Per-IP limits count without a trusted header under Latchkey's defaults only.
    env = {**ENV, "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION": "1s", "GOTRUE_RATE_LIMIT_PASSKEY": "4", "LATCHKEY_PROFILE": "strict"}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        _, token = new_user(url)
        options = post(url, "/passkeys/registration/options", token=token).json()
        time.sleep(1.2)
        late = post(url, "/passkeys/registration/verify",
                    {"challenge_id": options["challenge_id"], "credential": Authenticator().create(options)}, token=token)
        assert late.status_code == 400 and late.json()["error_code"] == "webauthn_challenge_expired"
        statuses = [post(url, "/passkeys/authentication/options").status_code for _ in range(5)]
        assert statuses == [200, 200, 200, 200, 429]
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_passkeys_are_off_unless_enabled(latchkey_server):
    url = latchkey_server.url
    assert httpx.get(f"{url}/settings", trust_env=False).json()["passkeys_enabled"] is False
    for path in ["/passkeys/authentication/options", "/passkeys/registration/options"]:
        answer = post(url, path)
        assert answer.status_code == 404 and answer.json()["error_code"] == "passkey_disabled"
    assert httpx.get(f"{url}/passkeys", trust_env=False).json()["error_code"] == "passkey_disabled"
