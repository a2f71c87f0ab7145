"""docs/step-up.md is true: its Python rule, read from the document and run as written, against
tokens from a live server. An aal1 token is refused; a second factor just verified passes; the
same token is refused once the limit is shorter than its age; verifying again moves the method's
time on, and the new token passes."""

from __future__ import annotations

import re
import time
import uuid

import httpx
import pyotp
import pytest

from conftest import REPO
from test_cli import serving

ENV = {
    "GOTRUE_MAILER_AUTOCONFIRM": "true",
    "GOTRUE_RATE_LIMIT_VERIFY": "1000",
    "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
}


def the_documents_rule() -> dict:
    text = (REPO / "docs" / "step-up.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(block, "docs/step-up.md", "exec"), scope)  # noqa: S102 - the document's own code
    return scope


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("step-up"), env=ENV) as url:
        yield url


def post(url: str, path: str, token: str | None, body: dict) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.post(f"{url}{path}", json=body, headers=headers, trust_env=False)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_documents_rule_demands_a_fresh_second_factor(server):
    rule = the_documents_rule()
    require, refused = rule["require_fresh_second_factor"], rule["StepUpRequired"]
    jwks = f"{server}/.well-known/jwks.json"
    email = f"step-{uuid.uuid4().hex[:8]}@example.com"
    aal1 = post(server, "/signup", None, {"email": email, "password": "correct horse battery staple"})["access_token"]
    with pytest.raises(refused):
        require(aal1, jwks)

    factor = post(server, "/factors", aal1, {"factor_type": "totp"})
    totp = pyotp.TOTP(factor["totp"]["secret"])
    challenge = post(server, f"/factors/{factor['id']}/challenge", aal1, {})
    aal2 = post(server, f"/factors/{factor['id']}/verify", aal1, {"challenge_id": challenge["id"], "code": totp.now()})
    claims = require(aal2["access_token"], jwks, max_age=300)
    first = max(e["timestamp"] for e in claims["amr"] if e["method"] == "totp")

    time.sleep(1.2)
    with pytest.raises(refused):
        require(aal2["access_token"], jwks, max_age=1)

    # Verified again (the next step's code), the method's time moves on and the new token passes.
    token = aal2["access_token"]
    challenge = post(server, f"/factors/{factor['id']}/challenge", token, {})
    again = post(server, f"/factors/{factor['id']}/verify", token,
                 {"challenge_id": challenge["id"], "code": totp.at(time.time() + 30)})
    renewed = require(again["access_token"], jwks, max_age=1)
    assert max(e["timestamp"] for e in renewed["amr"] if e["method"] == "totp") > first

    # A token signed by someone else is not one.
    forged = again["access_token"][:-4] + ("AAAA" if not again["access_token"].endswith("AAAA") else "BBBB")
    with pytest.raises(Exception) as error:
        require(forged, jwks)
    assert not isinstance(error.value, refused)
