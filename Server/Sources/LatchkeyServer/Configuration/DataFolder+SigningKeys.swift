import Foundation
import LatchkeyCore

extension DataFolder {
    /// The stored signing keys with their private PEMs. On the first start against an empty
    /// store the data folder's `signing-key.pem` (from before keys moved to the store) becomes the
    /// first key, with its key id kept so that tokens it signed stay valid; else a new key is
    /// generated straight into the store. Instances racing here agree on the first one stored.
    public func storedSigningKeys(
        store: any SigningKeyStore, serverSecret: [UInt8], now: Date
    ) async throws -> [(SigningKeyRecord, String)] {
        let file = (path as NSString).appendingPathComponent("signing-key.pem")
        return try await SigningKeys.stored(
            in: store, serverSecret: serverSecret, now: now,
            firstPEM: {
                FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self) } ?? SigningKeyPEM.generate()
            },
            mismatch: { kid in
                ConfigurationError(
                    "The stored signing key \(kid) cannot be opened with \(path)/server-secret: every instance needs the same server-secret"
                )
            })
    }
}
