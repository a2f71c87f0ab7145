import LatchkeyAPI

/// Hashes and verifies passwords. Implementations do the work off the caller's thread.
public protocol PasswordHasher: Sendable {
    /// A new self-describing hash string for `password`.
    func hash(_ password: String) async throws -> String
    /// Whether `password` matches `hash`. An unknown hash format is `false`, never an error.
    func verify(_ password: String, against hash: String) async throws -> Bool
    /// Whether `hash` was made with weaker settings than the current ones.
    func needsRehash(_ hash: String) -> Bool
    /// A hash in the current format and cost that no password matches, to verify against when
    /// there is no user, so that an unknown address costs what a known one does.
    func decoyHash() async throws -> String
}

extension PasswordHasher {
    /// The hash of a random password nobody knows.
    public func decoyHash() async throws -> String {
        try await hash(Base64URL.encode(SecureRandom.bytes(24)))
    }
}
