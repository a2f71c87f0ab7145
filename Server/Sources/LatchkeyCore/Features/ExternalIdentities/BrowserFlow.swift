import Foundation

/// A redirect flow whose app sent a PKCE challenge: the app gets a code and exchanges it.
public struct BrowserFlow: Sendable, Equatable {
    public var challenge: PKCEChallenge
    /// Hex SHA-256 of the code the app gets.
    public var authCodeHash: String
    /// Seconds the code waits to be exchanged.
    public var lifetime: TimeInterval

    public init(challenge: PKCEChallenge, authCodeHash: String, lifetime: TimeInterval) {
        self.challenge = challenge
        self.authCodeHash = authCodeHash
        self.lifetime = lifetime
    }
}
