"""Sign in with a wallet (#41): GoTrue's `grant_type=web3` against a live server, the other side
played by PyPI's wallets: `eth-account` signing as MetaMask does (EIP-191 personal_sign) over a
message `siwe` builds, PyNaCl signing a Sign in with Solana message with a base58 address. Each
request is shaped as supabase-js's `signInWithWeb3` sends it. Then a hostile table, each refused
and storing nothing."""

from __future__ import annotations

import base64
import concurrent.futures
import datetime
import json
import uuid

import base58
import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from nacl.signing import SigningKey

from test_cli import serving
from test_supabase_admin import SECRET, service_headers

SITE = "https://app.example.com"
ENV = {
    "GOTRUE_JWT_SECRET": SECRET,
    "GOTRUE_SITE_URL": SITE,
    "GOTRUE_URI_ALLOW_LIST": "http://localhost:5173/**",
    "GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED": "true",
    "GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED": "true",
    "GOTRUE_RATE_LIMIT_WEB3": "1000",
    "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("web3"), env=ENV) as url:
        yield url


def iso(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def now(**delta) -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(**delta)


def siwe_message(address: str, domain: str = "app.example.com", uri: str = f"{SITE}/login", issued: str | None = None,
                 extra: str = "", chain_id: str = "1") -> str:
    import siwe

    message = siwe.SiweMessage(
        domain=domain, address=address, statement="Sign in to Example", uri=uri, version="1", chain_id=int(chain_id),
        nonce=uuid.uuid4().hex[:16], issued_at=issued or iso(now()))
    return message.prepare_message() + extra


def sign_ethereum(account, message: str) -> str:
    return account.sign_message(encode_defunct(text=message)).signature.to_0x_hex()


def link_body(account, message: str) -> dict:
    """A request to link `account`'s Ethereum wallet to the bearer's account, signing `message`."""
    return {"chain": "ethereum", "message": message, "signature": sign_ethereum(account, message), "link_identity": True}


def siws_message(address: str, domain: str = "app.example.com", uri: str = f"{SITE}/login", issued: str | None = None,
                 extra: str = "") -> str:
    return (f"{domain} wants you to sign in with your Solana account:\n{address}\n\nSign in to Example\n\n"
            f"URI: {uri}\nVersion: 1\nChain ID: solana:mainnet\nNonce: {uuid.uuid4().hex[:16]}\n"
            f"Issued At: {issued or iso(now())}{extra}")


def solana_wallet() -> tuple[SigningKey, str]:
    key = SigningKey.generate()
    return key, base58.b58encode(bytes(key.verify_key)).decode()


def grant(server: str, chain: str, message: str, signature: str) -> httpx.Response:
    # As supabase-js's signInWithWeb3 sends it.
    return httpx.post(f"{server}/token?grant_type=web3", trust_env=False, headers={"X-Client-Info": "supabase-js/2.49.0"},
                      json={"chain": chain, "message": message, "signature": signature, "gotrue_meta_security": {}})


def users(server: str) -> int:
    return len(httpx.get(f"{server}/admin/users", headers=service_headers(), trust_env=False).json()["users"])


def test_a_metamask_signature_signs_a_user_in_once(server):
    account = Account.create()
    message = siwe_message(account.address)
    answer = grant(server, "ethereum", message, sign_ethereum(account, message))
    assert answer.status_code == 200, answer.text
    session = answer.json()
    identity = session["user"]["identities"][0]
    assert identity["provider"] == "web3" and identity["identity_id"]
    assert identity["identity_data"]["sub"] == f"web3:ethereum:{account.address}"
    assert identity["identity_data"]["custom_claims"]["address"] == account.address
    assert session["user"]["app_metadata"]["provider"] == "web3" and session["user"]["email"] == ""
    claims = httpx.get(f"{server}/user", headers={"Authorization": f"Bearer {session['access_token']}"}, trust_env=False)
    assert claims.status_code == 200
    payload = json.loads(base64.urlsafe_b64decode(session["access_token"].split(".")[1] + "=="))
    assert [m["method"] for m in payload["amr"]] == ["web3"]
    audit = httpx.get(f"{server}/admin/audit", params={"action": "user_signedup"}, headers=service_headers(), trust_env=False).json()
    assert any(e["payload"]["actor_id"] == session["user"]["id"] and e["payload"]["traits"].get("method") == "web3" for e in audit)
    # The same message again: refused (a captured message and signature cannot be replayed).
    again = grant(server, "ethereum", message, sign_ethereum(account, message))
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # A new message from the same wallet, spelled in lowercase: the same user.
    lower = siwe_message(account.address).replace(account.address, account.address.lower())  # siwe itself insists on EIP-55
    second = grant(server, "ethereum", lower, sign_ethereum(account, lower))
    assert second.status_code == 200, second.text
    assert second.json()["user"]["id"] == session["user"]["id"]


def test_a_solana_wallet_signs_a_user_in(server):
    key, address = solana_wallet()
    message = siws_message(address)
    signature = base64.b64encode(key.sign(message.encode()).signature).decode()
    answer = grant(server, "solana", message, signature)
    assert answer.status_code == 200, answer.text
    user = answer.json()["user"]
    assert user["identities"][0]["identity_data"]["sub"] == f"web3:solana:{address}"
    # URL-safe, unpadded: GoTrue takes it too.
    message2 = siws_message(address)
    raw = base64.urlsafe_b64encode(key.sign(message2.encode()).signature).decode().rstrip("=")
    assert grant(server, "solana", message2, raw).json()["user"]["id"] == user["id"]


def _ethereum_case(name: str) -> tuple[str, str, str]:
    """One hostile case, built when the test runs (times are relative to now: built at collection,
    a long suite would have aged them): the message, its signature, the error expected."""
    account, other = Account.create(), Account.create()

    def signed(message, by=account):
        return message, sign_ethereum(by, message)

    def high_s(message):
        signature = bytes.fromhex(sign_ethereum(account, message)[2:])
        n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
        s = n - int.from_bytes(signature[32:64], "big")
        v = 28 if signature[64] == 27 else 27
        return message, "0x" + (signature[:32] + s.to_bytes(32, "big") + bytes([v])).hex()

    def case_changed():
        message = siwe_message(account.address)
        signature = sign_ethereum(account, message)
        flipped = account.address[:2] + account.address[2:].swapcase()
        return message.replace(account.address, flipped), signature

    cases = {
        "wrong domain": lambda: (*signed(siwe_message(account.address, domain="evil.example.com")), "invalid_grant"),
        "uri off the list": lambda: (
            *signed(siwe_message(account.address, domain="evil.example", uri="https://evil.example/")), "invalid_grant"),
        "http uri": lambda: (*signed(siwe_message(account.address, uri="http://app.example.com/login")), "invalid_grant"),
        "expired": lambda: (*signed(siwe_message(account.address, issued=iso(now(minutes=-2)),
                                                 extra=f"\nExpiration Time: {iso(now(minutes=-1))}")), "invalid_grant"),
        "not yet valid": lambda: (
            *signed(siwe_message(account.address, extra=f"\nNot Before: {iso(now(minutes=5))}")), "invalid_grant"),
        "issued too long ago": lambda: (*signed(siwe_message(account.address, issued=iso(now(minutes=-11)))), "invalid_grant"),
        "issued in the future": lambda: (*signed(siwe_message(account.address, issued=iso(now(minutes=11)))), "invalid_grant"),
        "chain id not a number": lambda: (
            *signed(siwe_message(account.address).replace("Chain ID: 1", "Chain ID: eip155:1")), "validation_failed"),
        "address case changed": lambda: (*case_changed(), "invalid_grant"),
        "another signer": lambda: (*signed(siwe_message(account.address), by=other), "invalid_grant"),
        "high s": lambda: (*high_s(siwe_message(account.address)), "invalid_grant"),
        "truncated signature": lambda: (siwe_message(account.address), sign_ethereum(account, "x")[:-2], "validation_failed"),
        "oversized message": lambda: (
            *signed(siwe_message(account.address) + "\n" + "Request ID: " + "x" * 21000), "validation_failed"),
        "a field twice": lambda: (
            *signed(siwe_message(account.address, extra="\nURI: https://evil.example/")), "validation_failed"),
    }
    return cases[name]()


ETHEREUM_CASES = ["wrong domain", "uri off the list", "http uri", "expired", "not yet valid", "issued too long ago",
                  "issued in the future", "chain id not a number", "address case changed", "another signer", "high s",
                  "truncated signature", "oversized message", "a field twice"]


@pytest.mark.parametrize("name", ETHEREUM_CASES)
def test_hostile_ethereum_sign_ins_store_nothing(server, name):
    message, signature, error = _ethereum_case(name)
    before = users(server)
    answer = grant(server, "ethereum", message, signature)
    assert answer.status_code == 400, (name, answer.text)
    body = answer.json()
    assert body.get("error") == error or body.get("error_code") == error, (name, body)
    assert users(server) == before


def test_hostile_solana_sign_ins_store_nothing(server):
    key, address = solana_wallet()
    before = users(server)
    message = siws_message(address)
    other = base64.b64encode(key.sign(siws_message(address).encode()).signature).decode()
    for signature, error in [(other, "invalid_grant"), ("A" * 87, "validation_failed"), ("!" * 88, "validation_failed")]:
        answer = grant(server, "solana", message, signature)
        assert answer.status_code == 400 and (answer.json().get("error") or answer.json().get("error_code")) == error, answer.text
    bad_address = siws_message("0" + address[1:])
    answer = grant(server, "solana", bad_address, base64.b64encode(key.sign(bad_address.encode()).signature).decode())
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
    assert users(server) == before


@pytest.mark.parametrize("body, status, code", [
    ({"chain": "bitcoin", "message": "x", "signature": "y"}, 400, "web3_unsupported_chain"),
    ({"chain": "Ethereum", "message": "x", "signature": "y"}, 400, "web3_unsupported_chain"),
    ({"chain": "ethereum", "message": "short", "signature": "0x"}, 400, "validation_failed"),
])
def test_malformed_requests_get_gotrues_answers(server, body, status, code):
    answer = httpx.post(f"{server}/token?grant_type=web3", json=body, trust_env=False)
    assert answer.status_code == status and answer.json()["error_code"] == code, answer.text


def test_a_localhost_app_over_http_is_taken(server):
    account = Account.create()
    message = siwe_message(account.address, domain="localhost:5173", uri="http://localhost:5173/")
    assert grant(server, "ethereum", message, sign_ethereum(account, message)).status_code == 200


def test_racing_requests_with_one_signed_message_sign_in_once(server):
    account = Account.create()
    message = siwe_message(account.address)
    signature = sign_ethereum(account, message)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: grant(server, "ethereum", message, signature), range(8)))
    assert [a.status_code for a in answers].count(200) == 1, [a.text for a in answers]


def test_a_wallet_is_linked_to_an_account_and_unlinked(server):
    email = f"linker-{uuid.uuid4().hex[:8]}@example.com"
    made = httpx.post(f"{server}/admin/users", json={"email": email, "password": "correct horse battery staple",
                                                     "email_confirm": True}, headers=service_headers(), trust_env=False)
    assert made.status_code == 200, made.text
    token = httpx.post(f"{server}/token?grant_type=password", json={"email": email, "password": "correct horse battery staple"},
                       trust_env=False).json()["access_token"]
    account = Account.create()
    message = siwe_message(account.address)
    linked = httpx.post(f"{server}/token?grant_type=web3", trust_env=False, headers={"Authorization": f"Bearer {token}"},
                        json=link_body(account, message))
    assert linked.status_code == 200, linked.text
    user = linked.json()["user"]
    assert user["email"] == email and sorted(i["provider"] for i in user["identities"]) == ["email", "web3"]
    # The wallet now signs the same user in.
    again = siwe_message(account.address)
    assert grant(server, "ethereum", again, sign_ethereum(account, again)).json()["user"]["id"] == user["id"]
    # Another account cannot take it; without a token there is no one to link to.
    other = Account.create()
    theirs = siwe_message(other.address)
    assert httpx.post(f"{server}/token?grant_type=web3", trust_env=False, json=link_body(other, theirs)).status_code == 401
    second = grant(server, "ethereum", theirs, sign_ethereum(other, theirs)).json()
    third = siwe_message(account.address)
    stolen = httpx.post(f"{server}/token?grant_type=web3", trust_env=False, headers={"Authorization": f"Bearer {second['access_token']}"},
                        json=link_body(account, third))
    assert stolen.status_code == 422 and stolen.json()["error_code"] == "identity_already_exists", stolen.text
    # Unlinked, the wallet is its own user again; the last identity stays.
    fresh = linked.json()["access_token"]
    wallet_identity = next(i for i in user["identities"] if i["provider"] == "web3")
    gone = httpx.delete(f"{server}/user/identities/{wallet_identity['identity_id']}", headers={"Authorization": f"Bearer {fresh}"},
                        trust_env=False)
    assert gone.status_code in (200, 204), gone.text
    last = next(i for i in second["user"]["identities"] if i["provider"] == "web3")
    kept = httpx.delete(f"{server}/user/identities/{last['identity_id']}", headers={"Authorization": f"Bearer {second['access_token']}"},
                        trust_env=False)
    assert kept.status_code == 422 and kept.json()["error_code"] == "single_identity_not_deletable"
    later = siwe_message(account.address)
    assert grant(server, "ethereum", later, sign_ethereum(account, later)).json()["user"]["id"] != user["id"]


def test_a_password_alone_links_no_wallet_to_an_account_with_a_second_factor(server):
    import pyotp

    email = f"guarded-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple"
    httpx.post(f"{server}/admin/users", json={"email": email, "password": password, "email_confirm": True},
               headers=service_headers(), trust_env=False)
    first = httpx.post(f"{server}/token?grant_type=password", json={"email": email, "password": password}, trust_env=False).json()
    headers = {"Authorization": f"Bearer {first['access_token']}"}
    factor = httpx.post(f"{server}/factors", json={"factor_type": "totp"}, headers=headers, trust_env=False).json()
    totp = pyotp.TOTP(factor["totp"]["secret"])
    challenge = httpx.post(f"{server}/factors/{factor['id']}/challenge", headers=headers, trust_env=False).json()
    raised = httpx.post(f"{server}/factors/{factor['id']}/verify", json={"challenge_id": challenge["id"], "code": totp.now()},
                        headers=headers, trust_env=False)
    assert raised.status_code == 200, raised.text
    # A thief with the password: an aal1 session.
    thief = httpx.post(f"{server}/token?grant_type=password", json={"email": email, "password": password}, trust_env=False).json()
    account = Account.create()
    message = siwe_message(account.address)
    body = link_body(account, message)
    refused = httpx.post(f"{server}/token?grant_type=web3", json=body, headers={"Authorization": f"Bearer {thief['access_token']}"},
                         trust_env=False)
    assert refused.status_code == 401 and refused.json()["error_code"] == "insufficient_aal", refused.text
    # The owner at aal2 links it with the same message: it was not spent by the refusal.
    owner = httpx.post(f"{server}/token?grant_type=web3", json=body,
                       headers={"Authorization": f"Bearer {raised.json()['access_token']}"}, trust_env=False)
    assert owner.status_code == 200, owner.text


def test_linking_a_wallet_is_refused_while_manual_linking_is_off(tmp_path):
    env = {**ENV, "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "false"}
    with serving(tmp_path, env=env) as url:
        email = f"nolink-{uuid.uuid4().hex[:8]}@example.com"
        httpx.post(f"{url}/admin/users", json={"email": email, "password": "correct horse battery staple", "email_confirm": True},
                   headers=service_headers(), trust_env=False)
        token = httpx.post(f"{url}/token?grant_type=password", json={"email": email, "password": "correct horse battery staple"},
                           trust_env=False).json()["access_token"]
        account = Account.create()
        message = siwe_message(account.address)
        body = link_body(account, message)
        refused = httpx.post(f"{url}/token?grant_type=web3", json=body, headers={"Authorization": f"Bearer {token}"},
                             trust_env=False)
        assert refused.status_code == 404 and refused.json()["error_code"] == "manual_linking_disabled", refused.text
        # Nothing was linked, and the message was not spent: it still signs its own wallet in.
        assert [i["provider"] for i in httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {token}"},
                                                 trust_env=False).json()["identities"]] == ["email"]
        assert grant(url, "ethereum", message, body["signature"]).status_code == 200
