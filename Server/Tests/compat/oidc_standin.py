"""A local OpenID provider stand-in: discovery and key sets for several issuers on one
loopback server (``http://127.0.0.1:PORT/<name>``), and id tokens signed with its keys.

It records every request, so a test can count key-set fetches, and its keys can be rotated.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import jwt as pyjwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa


class Key:
    """A signing key with its kid, private key and public JWK."""

    def __init__(self, kind: str = "RS256", kid: str | None = None):
        self.alg = kind
        self.kid = kid or f"{kind.lower()}-{uuid.uuid4().hex[:8]}"
        if kind == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            jwk = json.loads(pyjwt.algorithms.ECAlgorithm.to_jwk(self.private.public_key()))
        else:
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            jwk = json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": kind})
        self.jwk = jwk


class Issuer:
    def __init__(self, standin: "OIDCStandIn", name: str):
        self.standin = standin
        self.name = name
        self.keys = [Key("RS256"), Key("ES256")]
        self.jwks_fetches = 0
        # code -> what the token endpoint answers for it, and what it must be sent.
        self.codes: dict[str, dict] = {}
        self.token_requests: list[dict] = []
        # RFC 7009 revocations received (Apple's /auth/revoke), as posted.
        self.revocations: list[dict] = []
        # GitHub: access token -> {"profile": …, "emails": […]}.
        self.github_tokens: dict[str, dict] = {}
        # Checks the client secret the token endpoint is sent (default: equal to ``secret``).
        self.secret = "provider-secret"
        self.check_secret = lambda client_id, secret: secret == self.secret

    def approve(self, authorize_url_params: dict, claims: dict) -> str:
        """What the provider does once the user agrees: a code for the flow ``authorize_url_params``
        describe, whose token answer carries ``claims`` (with the flow's nonce)."""
        code = uuid.uuid4().hex
        params = {k: v[0] if isinstance(v, list) else v for k, v in authorize_url_params.items()}
        self.codes[code] = {"params": params, "claims": claims}
        return code

    def approve_native(self, client_id: str, claims: dict) -> str:
        """What Sign in with Apple gives an app on the device with its id token: an authorization
        code for `client_id` (the app's bundle id), exchanged without a redirect."""
        code = uuid.uuid4().hex
        self.codes[code] = {"params": {"client_id": client_id}, "claims": claims}
        return code

    @property
    def url(self) -> str:
        return f"{self.standin.base}/{self.name}"

    def rotate(self, kind: str = "RS256") -> Key:
        """Publishes a new key beside the others and returns it."""
        key = Key(kind)
        self.keys.append(key)
        return key

    def claims(self, sub: str, aud: str, **extra) -> dict:
        now = int(time.time())
        claims = {"iss": self.url, "sub": sub, "aud": aud, "iat": now, "exp": now + 600}
        claims.update(extra)
        return {k: v for k, v in claims.items() if v is not None}

    def token(self, claims: dict, key: Key | None = None, alg: str | None = None, kid: str | None = "<key>") -> str:
        key = key or self.keys[0]
        headers = {} if kid is None else {"kid": key.kid if kid == "<key>" else kid}
        return pyjwt.encode(claims, key.private, algorithm=alg or key.alg, headers=headers)


class OIDCStandIn:
    def __init__(self) -> None:
        self.issuers: dict[str, Issuer] = {}
        self.requests: list[str] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                standin.requests.append(self.path)
                name, _, rest = self.path.lstrip("/").partition("/")
                issuer = standin.issuers.get(name)
                if issuer is None:
                    return self._send(404, {"error": "unknown issuer"})
                if rest == ".well-known/openid-configuration":
                    return self._send(200, {
                        "issuer": issuer.url,
                        "jwks_uri": f"{issuer.url}/jwks",
                        "authorization_endpoint": f"{issuer.url}/authorize",
                        "token_endpoint": f"{issuer.url}/token",
                        "revocation_endpoint": f"{issuer.url}/revoke",
                        "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                    })
                if rest in ("api/v3/user", "api/v3/user/emails"):
                    token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                    user = issuer.github_tokens.get(token)
                    if user is None:
                        return self._send(401, {"message": "Bad credentials"})
                    return self._send(200, user["emails"] if rest.endswith("emails") else user["profile"])
                if rest == "jwks":
                    issuer.jwks_fetches += 1
                    return self._send(200, {"keys": [k.jwk for k in issuer.keys]})
                return self._send(404, {"error": "not found"})

            def do_POST(self):
                standin.requests.append(self.path)
                name, _, rest = self.path.lstrip("/").partition("/")
                issuer = standin.issuers.get(name)
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if issuer is not None and rest == "login/oauth/access_token":
                    # GitHub: a plain access token; the user comes from its API.
                    grant = issuer.codes.pop(form.get("code", ""), None)
                    if grant is None or form.get("client_secret") != issuer.secret:
                        return self._send(200, {"error": "bad_verification_code"})
                    token = f"gho_{uuid.uuid4().hex}"
                    issuer.github_tokens[token] = grant["claims"]
                    return self._send(200, {"access_token": token, "token_type": "bearer", "scope": "user:email"})
                if issuer is not None and rest == "revoke":
                    # RFC 7009, as Apple's /auth/revoke: the client authenticates; 200 for any token.
                    issuer.revocations.append(form)
                    if not issuer.check_secret(form.get("client_id"), form.get("client_secret")):
                        return self._send(401, {"error": "invalid_client"})
                    return self._send(200, {})
                if issuer is None or rest != "token":
                    return self._send(404, {"error": "not found"})
                issuer.token_requests.append(form)
                grant = issuer.codes.pop(form.get("code", ""), None)
                if grant is None or form.get("grant_type") != "authorization_code":
                    return self._send(400, {"error": "invalid_grant"})
                params = grant["params"]
                if form.get("redirect_uri") != params.get("redirect_uri") or form.get("client_id") != params.get("client_id"):
                    return self._send(400, {"error": "invalid_grant", "error_description": "redirect_uri or client_id"})
                if not issuer.check_secret(form.get("client_id"), form.get("client_secret")):
                    return self._send(401, {"error": "invalid_client"})
                if "code_challenge" in params:
                    digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
                    if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != params["code_challenge"]:
                        return self._send(400, {"error": "invalid_grant", "error_description": "code_verifier"})
                claims = dict(grant["claims"])
                if "nonce" in params:
                    claims["nonce"] = params["nonce"]
                access = f"provider-access-{uuid.uuid4().hex[:8]}"
                return self._send(200, {"access_token": access, "token_type": "Bearer", "id_token": issuer.token(claims),
                                        "refresh_token": f"provider-refresh-{form.get('code', '')[:12]}"})

            def _send(self, status: int, body) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def issuer(self, name: str) -> Issuer:
        self.issuers.setdefault(name, Issuer(self, name))
        return self.issuers[name]

    def __enter__(self) -> "OIDCStandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
