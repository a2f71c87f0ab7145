import Foundation
import LatchkeyAPI

/// What the second-factor rule reads: a user's factors.
public protocol FactorReading: Sendable {
    /// The user's factors, verified or not, oldest first.
    func factors(userID: UUID) async throws -> [FactorRecord]
}

/// The rule that keeps a stolen password alone away from credentials, device keys, vaults and
/// signer keys: a user with a verified factor needs an `aal2` session (operators pass).
public struct SecondFactorGate: Sendable {
    let factors: any FactorReading

    public init(factors: any FactorReading) {
        self.factors = factors
    }

    /// `insufficient_aal` unless the caller is an operator, the session is `aal2`, or the user
    /// has no verified factor.
    public func require(_ principal: Principal, to action: String) async throws {
        guard !principal.isAdmin else { return }
        try await require(principal, else: Self.refusal(to: action))
    }

    /// Refuses `action` (`insufficient_aal`) unless `session` may change the ways into its
    /// account: it is `aal2`, or the user has no verified factor. For decisions taken on a session
    /// and factors already read (with the user, or again in a write's own read).
    public static func check(_ session: SessionRecord?, factors: [FactorRecord], to action: String) throws {
        guard allows(session, factors: factors) else { throw refusal(to: action) }
    }

    static func allows(_ session: SessionRecord?, factors: [FactorRecord]) -> Bool {
        session?.aal == "aal2" || !factors.contains { $0.status == .verified }
    }

    /// The refusal of an `aal1` session of a user with a factor.
    public static func refusal(to action: String) -> AuthError {
        AuthError(.insufficientAAL, "AAL2 session is required to \(action) when MFA is enabled.")
    }

    /// `refusal` unless the session is `aal2` or the user has no verified factor (operators are
    /// held to it too: GoTrue's passkey rule).
    public func require(_ principal: Principal, else refusal: AuthError) async throws {
        // An `aal2` session needs no read of the factors.
        guard principal.session?.aal != "aal2" else { return }
        if !Self.allows(principal.session, factors: try await factors.factors(userID: principal.user.id)) { throw refusal }
    }
}
