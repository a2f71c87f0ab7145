"""GoTrue's own environment starts Latchkey (issue #17).

Four configurations as a docker-compose of GoTrue would set them (SMS provider twilio with empty
credentials in every one, as GoTrue's test setup has it): autoconfirm on, autoconfirm off,
anonymous users on, asymmetric keys (`GOTRUE_JWT_KEYS`). Each must start, and the PyPI
supabase-auth client then signs in anonymously, makes that user permanent, and gets GoTrue's
answers for `/sso` and for phone verification.
"""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import running_server, supabase_client

from supabase_auth import SyncGoTrueClient  # noqa: E402
from supabase_auth.errors import AuthApiError  # noqa: E402

PASSWORD = "correct horse battery staple"


def _b64(number: int) -> str:
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


def _es256_jwk() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.private_numbers()
    public = numbers.public_numbers
    return json.dumps([{
        "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "key_ops": ["sign", "verify"],
        "kid": str(uuid.uuid4()), "x": _b64(public.x), "y": _b64(public.y), "d": _b64(numbers.private_value),
    }])


GOTRUE_BASE = {
    "GOTRUE_API_HOST": "0.0.0.0",
    "API_EXTERNAL_URL": "http://localhost:9999",
    "GOTRUE_DB_DRIVER": "postgres",
    "GOTRUE_SITE_URL": "http://localhost:3000",
    "GOTRUE_JWT_SECRET": "37c304f8-51aa-419a-a1af-06154e63707a",
    "GOTRUE_JWT_EXP": "3600",
    "GOTRUE_JWT_AUD": "authenticated",
    "GOTRUE_JWT_DEFAULT_GROUP_NAME": "authenticated",
    "GOTRUE_JWT_ADMIN_ROLES": "service_role",
    "GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
    "GOTRUE_SMS_PROVIDER": "twilio",
    "GOTRUE_SMS_TWILIO_ACCOUNT_SID": "",
    "GOTRUE_SMS_TWILIO_AUTH_TOKEN": "",
    "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID": "",
    "GOTRUE_SMS_AUTOCONFIRM": "false",
    "GOTRUE_SAML_ENABLED": "false",
    "GOTRUE_SMTP_MAX_FREQUENCY": "1ns",
    "GOTRUE_RATE_LIMIT_EMAIL_SENT": "1000",
    "GOTRUE_LOG_LEVEL": "debug",
    # What the test suite needs and GoTrue's defaults give: see docs/migrating-from-gotrue.md.
    "GOTRUE_PASSWORD_MIN_LENGTH": "6",
}

CONFIGURATIONS = {
    "autoconfirm": {"GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"},
    "confirm-by-mail": {"GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"},
    "signups-disabled": {
        "GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_DISABLE_SIGNUP": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
    },
    "asymmetric-keys": {
        "GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
        "GOTRUE_JWT_KEYS": "<es256>",
    },
}


def _environment(name: str) -> dict[str, str]:
    env = {**GOTRUE_BASE, **CONFIGURATIONS[name]}
    if env.get("GOTRUE_JWT_KEYS") == "<es256>":
        env["GOTRUE_JWT_KEYS"] = _es256_jwk()
    return env


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_gotrue_environment_starts_and_serves_the_client(tmp_path: Path, name: str):
    env = _environment(name)
    with running_server(tmp_path, env) as server:
        log = server.log_path.read_text(errors="replace")
        assert "sms-provider twilio lacks" in log, "the incomplete provider is named once at start"
        client = supabase_client(server.url)
        try:
            if name == "signups-disabled":
                with pytest.raises(AuthApiError) as refused:
                    client.sign_in_anonymously()
                assert refused.value.code == "signup_disabled"
            else:
                _anonymous_then_permanent(server, client, autoconfirm=env["GOTRUE_MAILER_AUTOCONFIRM"] == "true")
            _gotrue_answers(server, client, signups=name != "signups-disabled")
        finally:
            client.close()


def _anonymous_then_permanent(server, client: SyncGoTrueClient, autoconfirm: bool) -> None:
    signed_in = client.sign_in_anonymously({"options": {"data": {"cart": 3}}})
    assert signed_in.session is not None
    user = signed_in.user
    assert user.is_anonymous is True
    assert user.user_metadata == {"cart": 3}
    assert client.get_user().user.is_anonymous is True

    email = f"anon-{uuid.uuid4().hex[:8]}@example.com"
    updated = client.update_user({"email": email, "password": PASSWORD})
    if autoconfirm:
        assert updated.user.is_anonymous is False
        assert updated.user.email == email
    else:
        assert updated.user.is_anonymous is True
        assert updated.user.new_email == email
        verified = client.verify_otp({"email": email, "token": server.latest_code(email), "type": "email_change"})
        assert verified.user.is_anonymous is False
    # The same user, permanent: it signs in with the address and password it added.
    other = supabase_client(server.url)
    try:
        again = other.sign_in_with_password({"email": email, "password": PASSWORD})
        assert again.user.id == user.id
        assert again.user.is_anonymous is False
        assert [identity.provider for identity in again.user.identities] == ["email"]
    finally:
        other.close()


def _gotrue_answers(server, client: SyncGoTrueClient, signups: bool) -> None:
    # SAML is off: GoTrue's 404 saml_provider_disabled for every /sso path.
    with pytest.raises(AuthApiError) as sso:
        client.sign_in_with_sso({"domain": "example.com"})
    assert sso.value.code == "saml_provider_disabled"
    assert sso.value.status == 404
    metadata = httpx.get(f"{server.url}/sso/saml/metadata", trust_env=False)
    assert metadata.status_code == 404 and metadata.json()["error_code"] == "saml_provider_disabled"
    # Phone verification checks the number first, then answers otp_expired for an unknown one.
    with pytest.raises(AuthApiError) as bad:
        client.verify_otp({"phone": "12-34", "token": "123456", "type": "sms"})
    assert bad.value.code == "validation_failed"
    with pytest.raises(AuthApiError) as unknown:
        client.verify_otp({"phone": "+15555550123", "token": "123456", "type": "sms"})
    assert unknown.value.code == "otp_expired"
    # An SMS fails only when it is sent, as on GoTrue (with sign-ups off, an unknown number is
    # refused before that).
    with pytest.raises(AuthApiError) as sms:
        client.sign_in_with_otp({"phone": "+15555550123"})
    if signups:
        assert sms.value.status == 500
        assert "Unable to get SMS provider" in sms.value.message
    else:
        assert sms.value.code == "signup_disabled"
