import Foundation
import LatchkeyCore

extension DataFolder {
    /// The stored signing keys with their private PEMs. On the first start against an empty
    /// store the data folder's `signing-key.pem` (from before keys moved to the store) becomes the
    /// first key, with its key id kept so that tokens it signed stay valid; else a new key is
    /// generated straight into the store. Instances racing here agree on the first one stored.
    public func storedSigningKeys(
        store: any AuthStore, serverSecret: [UInt8], now: Date
    ) async throws -> [(SigningKeyRecord, String)] {
        let box = AuthService.signingKeyBox(serverSecret: serverSecret)
        var keys = try await store.signingKeys()
        if keys.isEmpty {
            let file = (path as NSString).appendingPathComponent("signing-key.pem")
            let pem =
                FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self) } ?? TokenIssuer.generateES256PEM()
            let first = try AuthService.signingKeyRecord(pem: pem, signsFrom: Date(timeIntervalSince1970: 0), now: now, box: box)
            _ = try await store.addSigningKey(first, audit: [])
            keys = try await store.signingKeys()
        }
        return try keys.map { key in
            guard let pem = try? box.open(key.sealedPrivateKey, context: key.kid) else {
                throw ConfigurationError(
                    "The stored signing key \(key.kid) cannot be opened with \(path)/server-secret: every instance needs the same server-secret"
                )
            }
            return (key, String(decoding: pem, as: UTF8.self))
        }
    }
}
