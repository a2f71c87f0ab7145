import Foundation
import LatchkeyAPI

/// Passwords, new and presented: a new one is checked against the policy and hashed; a
/// presented one is verified against the account's hash, or against a decoy when there is no
/// account (or it has no password), so that an unknown account costs what a known one does.
public struct Passwords: Sendable {
    public let policy: PasswordPolicy
    let hasher: any PasswordHasher
    /// A hash of a random password nobody knows.
    let decoyHash: String

    public init(policy: PasswordPolicy, hasher: any PasswordHasher, decoyHash: String) {
        self.policy = policy
        self.hasher = hasher
        self.decoyHash = decoyHash
    }

    /// Passwords with a decoy hash made by `hasher`.
    public static func make(policy: PasswordPolicy, hasher: any PasswordHasher) async throws -> Passwords {
        Passwords(policy: policy, hasher: hasher, decoyHash: try await hasher.decoyHash())
    }

    /// The hash of a new password, after the policy allowed it (its refusal otherwise).
    public func hashNew(_ password: String) async throws -> String {
        if let refusal = policy.check(password) { throw refusal }
        return try await hasher.hash(password)
    }

    /// The hash of a password the policy was already asked about.
    public func hash(_ password: String) async throws -> String {
        try await hasher.hash(password)
    }

    /// Whether `password` matches `hash`; with no hash, `false` after the same work.
    public func verify(_ password: String, against hash: String?) async throws -> Bool {
        let matched = try await hasher.verify(password, against: hash ?? decoyHash)
        return hash != nil && matched
    }

    /// A new hash of `password` when `hash` (which it matched) was made with weaker settings.
    public func upgrade(_ password: String, from hash: String?) async throws -> String? {
        guard let hash, hasher.needsRehash(hash) else { return nil }
        return try await hasher.hash(password)
    }

    /// Whether the password is too long to even hash: refused before any work.
    public func isTooLong(_ password: String) -> Bool { policy.isTooLong(password) }

    /// The policy's refusal of `password`, as the `weak_password` of a sign-in's answer.
    public func weakness(of password: String) -> WeakPassword? {
        policy.check(password).map { WeakPassword(message: $0.message, reasons: $0.weakPasswordReasons ?? []) }
    }
}
