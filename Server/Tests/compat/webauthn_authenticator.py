"""A software WebAuthn authenticator for the compat tests: it answers Latchkey's (GoTrue's)
passkey options as a browser and a platform authenticator would, in the JSON of
`PublicKeyCredential.toJSON()`, and lets a test spoil any part of the answer.

Keys: ES256 (P-256), EdDSA (Ed25519) and RS256 (RSA 2048). Attestation `none` or `packed`
self-attestation. CBOR written canonically (CTAP2: definite lengths, shortest heads, map keys
sorted by their encoding's length, then bytes)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for extra, size, fmt in ((24, 1, ">B"), (25, 2, ">H"), (26, 4, ">I"), (27, 8, ">Q")):
        if value < 1 << (8 * size):
            return bytes([major << 5 | extra]) + struct.pack(fmt, value)
    raise ValueError("too large")


def cbor(value) -> bytes:
    """Canonical CBOR of ints, bytes, text, lists, dicts and booleans."""
    if value is True:
        return b"\xf5"
    if value is False:
        return b"\xf4"
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, (bytes, bytearray)):
        return _head(2, len(value)) + bytes(value)
    if isinstance(value, str):
        raw = value.encode()
        return _head(3, len(raw)) + raw
    if isinstance(value, list):
        return _head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict):
        pairs = sorted(((cbor(k), cbor(v)) for k, v in value.items()), key=lambda p: (len(p[0]), p[0]))
        return _head(5, len(pairs)) + b"".join(k + v for k, v in pairs)
    raise TypeError(type(value))


class Authenticator:
    """One credential on one authenticator. `alg` is -7 (ES256), -8 (EdDSA) or -257 (RS256)."""

    def __init__(self, alg: int = -7, rp_id: str = "example.com", origin: str = "https://example.com",
                 flags: int = UP | UV | BE | BS, aaguid: bytes = bytes(16), counts: bool = False):
        self.alg = alg
        self.rp_id = rp_id
        self.origin = origin
        self.flags = flags
        self.aaguid = aaguid
        self.counter = 0 if not counts else 1
        self.counts = counts
        self.credential_id = os.urandom(32)
        self.user_handle: str | None = None
        if alg == -7:
            self.key = ec.generate_private_key(ec.SECP256R1())
        elif alg == -8:
            self.key = ed25519.Ed25519PrivateKey.generate()
        elif alg == -257:
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            raise ValueError(alg)

    def cose_key(self) -> bytes:
        if self.alg == -7:
            numbers = self.key.public_key().public_numbers()
            return cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        if self.alg == -8:
            from cryptography.hazmat.primitives import serialization
            raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            return cbor({1: 1, 3: -8, -1: 6, -2: raw})
        numbers = self.key.public_key().public_numbers()
        return cbor({1: 3, 3: -257, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")})

    def sign(self, data: bytes) -> bytes:
        if self.alg == -7:
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        if self.alg == -8:
            return self.key.sign(data)
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def auth_data(self, *, credential: bool, flags: int | None = None, rp_id: str | None = None,
                  count: int | None = None) -> bytes:
        flags = self.flags if flags is None else flags
        data = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        data += bytes([flags | (AT if credential else 0)])
        data += struct.pack(">I", self.counter if count is None else count)
        if credential:
            data += self.aaguid + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key()
        return data

    @staticmethod
    def client_data(kind: str, challenge: str, origin: str, **extra) -> bytes:
        body = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
        body.update(extra)
        return json.dumps(body, separators=(",", ":")).encode()

    def create(self, answer: dict, *, fmt: str = "none", kind: str = "webauthn.create", challenge: str | None = None,
               origin: str | None = None, flags: int | None = None, rp_id: str | None = None, statement: dict | None = None,
               client_extra: dict | None = None, object_bytes: bytes | None = None) -> dict:
        """The `credential` of `/passkeys/registration/verify` for an options answer."""
        options = answer["options"]
        self.user_handle = options["user"]["id"]
        client = self.client_data(kind, challenge or options["challenge"], origin or self.origin, **(client_extra or {}))
        auth = self.auth_data(credential=True, flags=flags, rp_id=rp_id)
        if statement is None:
            if fmt == "packed":
                statement = {"alg": self.alg, "sig": self.sign(auth + hashlib.sha256(client).digest())}
            else:
                statement = {}
        attestation = object_bytes if object_bytes is not None else cbor({"fmt": fmt, "attStmt": statement, "authData": auth})
        return {
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "authenticatorAttachment": "platform",
            "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(attestation),
                         "transports": ["internal", "hybrid"]},
            "clientExtensionResults": {},
        }

    def get(self, answer: dict, *, kind: str = "webauthn.get", challenge: str | None = None, origin: str | None = None,
            flags: int | None = None, rp_id: str | None = None, count: int | None = None, user_handle: str | None = None,
            spoil_signature: bool = False) -> dict:
        """The `credential` of `/passkeys/authentication/verify`: a username-less assertion."""
        if self.counts and count is None:
            self.counter += 1
        options = answer["options"]
        client = self.client_data(kind, challenge or options["challenge"], origin or self.origin)
        auth = self.auth_data(credential=False, flags=flags, rp_id=rp_id, count=count)
        signature = self.sign(auth + hashlib.sha256(client).digest())
        if spoil_signature:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        return {
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64url(client), "authenticatorData": b64url(auth),
                         "signature": b64url(signature), "userHandle": user_handle or self.user_handle},
            "clientExtensionResults": {},
        }
