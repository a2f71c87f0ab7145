import Foundation

/// What `/verify` needs from storage: users by address, number or pending change, and one
/// token redeemed by a rules value in one transaction.
public protocol VerificationStore: UserReading, AccountReading {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// The users whose pending email change goes to `newEmail`, oldest request first.
    func users(newEmail: String) async throws -> [UserRecord]
    /// The users whose pending phone change goes to `newPhone`, oldest request first.
    func users(newPhone: String) async throws -> [UserRecord]
    /// In one transaction that also counts `limits` (``RateLimitExceeded`` for one passed: only
    /// its counters are stored): reads the outstanding token `rules` selects and its user,
    /// decides by ``CodeRedemption/decide(token:user:)`` and applies the decision.
    ///
    /// - `refuse`: writes nothing and answers its outcome.
    /// - `mismatch`: counts the attempt and records the events; ``RedemptionOutcome/mismatch(attemptsRemaining:)``.
    /// - `reject`: records the events; ``RedemptionOutcome/rejected(_:)``.
    /// - `redeem`: counts the attempt and spends the token (``RedemptionOutcome/notFound`` if
    ///   another request spent it first), voids the user's other outstanding tokens but those
    ///   preserved, stores the user only at the version read (a change meanwhile, such as a ban,
    ///   makes the store read and decide again), the identities, the session or flow state, the
    ///   messages and the events; ``RedemptionOutcome/redeemed(_:)`` with the account read back
    ///   when a session was stored. ``StoreError/duplicate(_:)`` when the new address or number
    ///   was taken meanwhile.
    ///
    /// Attempts on one token are serialized: the cap holds against concurrent guesses, and of
    /// requests racing with one right code, one redeems it.
    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome
}

extension VerificationStore {
    /// Redeems a token, counting no rate limit.
    public func redeem(_ rules: CodeRedemption) async throws -> RedemptionOutcome {
        try await redeem(rules, limits: [])
    }
}
