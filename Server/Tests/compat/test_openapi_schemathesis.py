"""The API document is exact: schemathesis (PyPI) against a live server.

Schemathesis reads ``/openapi.json``, generates requests the document allows and requests it
forbids (examples, coverage, fuzzing and its stateful phase, which chains the operations the
document links), and checks every answer: no server error, every status and body as documented,
schema-valid requests accepted and schema-violating ones refused. Seeded and bounded, so a run is
repeatable; any finding fails the test with schemathesis's report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from conftest import HERE, _find_binary, running_server

CONFIG = HERE / "schemathesis.toml"
MAX_EXAMPLES = "30"
SEED = "1"

# A server that lets the generated traffic through: limits far above what a run sends, an email
# confirmed at sign-up (so a session comes back), anonymous sign-ins on.
ENV = {
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
    "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS": "100000",
    "LATCHKEY_RATE_LIMIT_OTP": "100000",
    "LATCHKEY_RATE_LIMIT_OTP_PER_HOUR": "100000",
    "LATCHKEY_RATE_LIMIT_TOKEN": "100000",
    "LATCHKEY_RATE_LIMIT_VERIFY": "100000",
    "LATCHKEY_RATE_LIMIT_EMAIL_SENT": "100000",
    "LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS": "100000",
    "LATCHKEY_RATE_LIMIT_SMS_SENT": "100000",
    "LATCHKEY_RATE_LIMIT_MFA": "100000",
    "LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES": "100000",
    "LATCHKEY_RATE_LIMIT_PASSKEY": "100000",
    # Passkeys on, so the fuzzer reaches the ceremonies (off, every /passkeys route is a 404).
    "GOTRUE_PASSKEY_ENABLED": "true",
    # Phone factors on (#39), so the fuzzer enrols and challenges them (codes go to the dev mailbox).
    "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true",
    "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
}


def _schemathesis() -> str:
    found = shutil.which("schemathesis") or str(Path(sys.executable).parent / "schemathesis")
    if not Path(found).exists():
        pytest.fail("schemathesis is not installed: pip install -r Server/Tests/compat/requirements.txt (scripts/test does)")
    return found


def _run(url: str, token: str, *filters: str) -> None:
    command = [
        _schemathesis(),
        "--config-file", str(CONFIG),
        "run", f"{url}/openapi.json",
        "--checks", "all",
        "--seed", SEED,
        "--max-examples", MAX_EXAMPLES,
        "--continue-on-failure",
        "-H", f"Authorization: Bearer {token}",
        "-H", "X-Supabase-Api-Version: 2024-01-01",
        *filters,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900)
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"schemathesis {' '.join(filters)} found problems:\n{report[-20000:]}"
    # It tested something: a filter that matched nothing would pass vacuously.
    assert "generated" in report and " 0 generated" not in report, report[-4000:]


def test_the_api_document_matches_the_server(tmp_path):
    with running_server(tmp_path, ENV) as server:
        signup = httpx.post(
            f"{server.url}/signup",
            json={"email": "schemathesis@example.com", "password": "correct horse battery staple"},
            trust_env=False,
        )
        assert signup.status_code == 200, signup.text
        user_token = signup.json()["access_token"]
        minted = subprocess.run(
            [str(_find_binary()), "keys", "service-token", "--data-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=60,
        )
        assert minted.returncode == 0, minted.stderr
        service_token = minted.stdout.strip()

        # The user's operations with a user's token (logout and account deletion last: they end
        # the session and the user)...
        _run(server.url, user_token, "--exclude-path-regex", "^/admin|^/invite|^/logout", "--exclude-operation-id", "deleteAccount")
        # ...the operator's with a service-role token...
        _run(server.url, service_token, "--include-path-regex", "^/admin|^/invite")
        # ...the deletion of another user's account (its own fresh session)...
        leaving = httpx.post(
            f"{server.url}/signup",
            json={"email": "schemathesis-leaving@example.com", "password": "correct horse battery staple"},
            trust_env=False,
        )
        assert leaving.status_code == 200, leaving.text
        _run(server.url, leaving.json()["access_token"], "--include-operation-id", "deleteAccount")
        # ...and /logout.
        _run(server.url, user_token, "--include-path-regex", "^/logout")
