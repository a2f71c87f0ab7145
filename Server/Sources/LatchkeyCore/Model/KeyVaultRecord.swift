import Foundation
import LatchkeyAPI

/// A server-assisted PIN vault: the server's half of it. The encrypted key itself stays on the
/// device; the server holds a random share (sealed under the server secret) and a MAC of the PIN
/// verifier, and counts wrong PINs.
public struct KeyVaultRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    /// The MAC (``SecretBox/mac(_:)``) of the vault id and the PIN verifier.
    public var verifierMAC: String
    /// The sealed share; `nil` once too many wrong PINs destroyed it.
    public var sealedShare: String?
    public var failedAttempts: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, userID: UUID, verifierMAC: String, sealedShare: String?, failedAttempts: Int = 0, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.verifierMAC = verifierMAC
        self.sealedShare = sealedShare
        self.failedAttempts = failedAttempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The vault as the API shows it, with `share` when the answer releases it.
    public func wire(share: [UInt8]? = nil, maxAttempts: Int) -> KeyVault {
        KeyVault(
            id: id, share: share.map { Base64URL.encode(Data($0)) }, failedAttempts: failedAttempts,
            maxAttempts: maxAttempts, locked: sealedShare == nil, createdAt: createdAt)
    }
}
