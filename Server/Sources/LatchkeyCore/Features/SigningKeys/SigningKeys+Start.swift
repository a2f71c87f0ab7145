import Foundation

extension SigningKeys {
    /// The box that seals stored signing keys under the server secret.
    public static func box(serverSecret: [UInt8]) -> SecretBox {
        SecretBox(serverSecret: serverSecret, purpose: "latchkey signing key v1")
    }

    /// A store record for an ES256 private key, its private part sealed with `box`. The key id is
    /// a digest of the PEM, as the data folder's key has always had.
    public static func record(pem: String, signsFrom: Date, now: Date, box: SecretBox) throws -> SigningKeyRecord {
        let kid = String(OneTimeSecrets.linkHash(pem).prefix(16))
        return SigningKeyRecord(
            kid: kid, sealedPrivateKey: try box.seal(Array(pem.utf8), context: kid),
            publicJWK: try SigningKeyPEM.publicJWK(pem: pem, kid: kid), createdAt: now, signsFrom: signsFrom)
    }

    /// A stored key's private PEM, opened with `box` (the server secret's key box). Fails when the
    /// key was sealed under another server secret.
    public static func open(_ key: SigningKeyRecord, box: SecretBox) throws -> String {
        String(decoding: try box.open(key.sealedPrivateKey, context: key.kid), as: UTF8.self)
    }

    /// The stored signing keys with their private PEMs, before the issuer exists (at start). On
    /// the first start against an empty store, `firstPEM` (an older data folder's key, else a new
    /// one) becomes the first key, valid from the epoch so that tokens it signed stay valid;
    /// instances racing here agree on the first one stored. `mismatch` is thrown for a key that
    /// the server secret cannot open.
    public static func stored(
        in store: any SigningKeyStore, serverSecret: [UInt8], now: Date, firstPEM: () -> String, mismatch: (String) -> any Error
    ) async throws -> [(SigningKeyRecord, String)] {
        let box = box(serverSecret: serverSecret)
        var keys = try await store.signingKeys()
        if keys.isEmpty {
            let first = try record(pem: firstPEM(), signsFrom: Date(timeIntervalSince1970: 0), now: now, box: box)
            _ = try await store.addSigningKey(first, audit: [])
            keys = try await store.signingKeys()
        }
        return try keys.map { key in
            guard let pem = try? open(key, box: box) else { throw mismatch(key.kid) }
            return (key, pem)
        }
    }
}
