import Foundation

/// A second factor being verified: the factor, its open challenge, and the ways to answer it. Made
/// by ``MFA/begin(_:channel:)`` (or ``AuthModel/challenge(factor:channel:)``), which sends a phone
/// factor's code.
///
/// ```swift
/// let factors = try await auth.mfa.secondFactors()
/// let pending = try await auth.mfa.begin(factors[0])
/// if pending.takesCode {
///     try await pending.verify(code: typedCode)   // TOTP, or the code the message carried
/// } else {
///     try await auth.mfa.verifyWithSecurityKey(pending)   // Apple platforms
/// }
/// ```
public struct SecondFactorChallenge: Sendable, Identifiable, Equatable {
    /// The factor being verified.
    public let factor: Factor
    /// Its open challenge: answer it before ``FactorChallenge/expiresAt``.
    public let challenge: FactorChallenge
    let client: AuthClient

    /// The challenge's id.
    public var id: UUID { challenge.id }

    /// Whether a typed code answers it (TOTP and phone factors); a WebAuthn factor's is answered
    /// by its key (``webAuthnCeremony``).
    public var takesCode: Bool { factor.factorType != .webauthn }

    /// What the authenticator needs for a WebAuthn factor: the relying party, the challenge and
    /// the factor's key (a registration's user, for a factor not yet verified).
    public var webAuthnCeremony: PasskeyCeremony? {
        challenge.webauthn?.credentialOptions.objectValue?["publicKey"].flatMap(PasskeyCeremony.init(options:))
    }

    /// Verifies the code the user typed: the session becomes ``AAL/aal2``. A wrong code throws
    /// ``LatchkeyError/isMFAVerificationFailed`` and the challenge stays open for another try
    /// (a phone factor's until its code expires).
    @discardableResult
    public func verify(code: String) async throws -> Session {
        try await client.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: code)
    }

    /// Verifies a WebAuthn factor with its key's answer to ``webAuthnCeremony``.
    @discardableResult
    public func verify(credential: PasskeyCredential) async throws -> Session {
        try await client.mfa.verify(factorID: factor.id, challenge: challenge, credential: credential)
    }

    /// A new challenge for the same factor: for a phone factor, a new code (only the newest
    /// counts), at most once per the server's interval (``LatchkeyError/isRateLimited`` sooner).
    public func renewed(channel: SMSChannel? = nil) async throws -> SecondFactorChallenge {
        try await client.mfa.begin(factor, channel: channel)
    }

    public static func == (lhs: SecondFactorChallenge, rhs: SecondFactorChallenge) -> Bool {
        lhs.factor == rhs.factor && lhs.challenge == rhs.challenge
    }
}

extension MFA {
    /// The factors a session at ``AAL/aal1`` can be raised with: the signed-in user's verified
    /// factors, fetched from the server, authenticator apps first, then security keys, then phones.
    public func secondFactors() async throws -> [Factor] {
        Self.usable(try await listFactors().all)
    }

    /// Opens a challenge for `factor`, to verify next: a phone factor's code is sent now, over
    /// `channel` (SMS by default); a WebAuthn factor's challenge carries its key's options.
    public func begin(_ factor: Factor, channel: SMSChannel? = nil) async throws -> SecondFactorChallenge {
        let challenge = try await challenge(factorID: factor.id, channel: factor.factorType == .phone ? channel : nil)
        return SecondFactorChallenge(factor: factor, challenge: challenge, client: client)
    }

    /// The verified factors among `factors`, in the order a sign-in offers them.
    static func usable(_ factors: [Factor]) -> [Factor] {
        [FactorType.totp, .webauthn, .phone].flatMap { type in factors.filter { $0.status == .verified && $0.factorType == type } }
    }
}
