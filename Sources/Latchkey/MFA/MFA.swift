import Foundation

/// Multi-factor authentication with an authenticator app (TOTP), a phone (codes by SMS or
/// WhatsApp) or a security key (WebAuthn), reached as ``AuthClient/mfa``.
///
/// Enrolling: the signed-in user scans a QR code, then proves the app works by typing a code.
///
/// ```swift
/// let enrollment = try await auth.mfa.enroll(friendlyName: "Ada's phone")
/// showQRCode(svg: enrollment.totp.qrCode, secret: enrollment.totp.secret)
/// // The user types the 6 digits the app shows:
/// try await auth.mfa.challengeAndVerify(factorID: enrollment.id, code: typedCode)
/// ```
///
/// Signing in: after the first factor (password, emailed code), ask for a code when the user has
/// a verified factor.
///
/// ```swift
/// try await auth.signIn(email: email, password: password)
/// let level = try await auth.mfa.assuranceLevel()
/// if level.next == .aal2 && level.current == .aal1 {
///     let factor = try await auth.mfa.listFactors().totp[0]
///     do {
///         try await auth.mfa.challengeAndVerify(factorID: factor.id, code: typedCode)
///     } catch let error as LatchkeyError where error.isMFAVerificationFailed {
///         showWrongCode()
///     }
/// }
/// ```
///
/// A phone factor gets its code by message: enrol the number, then challenge (which sends the code)
/// and verify what the user types.
///
/// ```swift
/// let phone = try await auth.mfa.enrollPhone("+44 7700 900123")
/// let challenge = try await auth.mfa.challenge(factorID: phone.id, channel: .sms)
/// // The user types the code from the message:
/// try await auth.mfa.verify(factorID: phone.id, challengeID: challenge.id, code: typedCode)
/// ```
///
/// A verified code upgrades the session to ``AAL/aal2``: the server answers with a new session,
/// which replaces the stored one and is announced as ``AuthEvent/mfaChallengeVerified``.
public struct MFA: Sendable {
    let client: AuthClient

    /// Starts enrolling a TOTP factor for the signed-in user. The factor stays unverified until
    /// a code from it is verified (``challengeAndVerify(factorID:code:)``).
    ///
    /// - Parameters:
    ///   - friendlyName: A name for the factor, unique among the user's factors.
    ///   - issuer: The name the authenticator app shows; the server's host when `nil`.
    /// - Returns: The factor's id and its secret as a QR code (SVG), base32 text and an
    ///   `otpauth://` URI.
    ///
    /// Throws ``LatchkeyError/isMFAFactorNameConflict`` when the name is taken,
    /// ``LatchkeyError/isTooManyMFAFactors`` at the server's limit, and
    /// ``LatchkeyError/isInsufficientAAL`` when the user already has a verified factor and this
    /// session has not used it.
    public func enroll(friendlyName: String? = nil, issuer: String? = nil) async throws -> TOTPEnrollment {
        try await client.sendAuthorized(
            "POST", "factors", body: EnrollFactorRequest(factorType: FactorType.totp.rawValue, friendlyName: friendlyName, issuer: issuer),
            as: TOTPEnrollment.self)
    }

    /// Starts enrolling a phone factor for the signed-in user: codes go to `phoneNumber` (E.164,
    /// such as `+44 7700 900123`) by SMS or WhatsApp. The factor stays unverified until a code
    /// sent to it is verified. The server must allow phone factors (GoTrue's
    /// `GOTRUE_MFA_PHONE_ENROLL_ENABLED`).
    ///
    /// Throws ``LatchkeyError/isMFAVerifiedFactorExists`` when a verified factor has this number,
    /// ``LatchkeyError/isInsufficientAAL`` as ``enroll(friendlyName:issuer:)`` does, and a
    /// validation error for a number that is not E.164.
    public func enrollPhone(_ phoneNumber: String, friendlyName: String? = nil) async throws -> PhoneEnrollment {
        try await client.sendAuthorized(
            "POST", "factors",
            body: EnrollFactorRequest(factorType: FactorType.phone.rawValue, friendlyName: friendlyName, phone: phoneNumber),
            as: PhoneEnrollment.self)
    }

    /// Starts enrolling a WebAuthn factor: a security key (or a platform authenticator) as the
    /// second factor. The factor has no key until its first challenge (``FactorChallenge/webauthn``
    /// of type `create`) is answered by the authenticator and verified with
    /// ``verify(factorID:challenge:credential:)``; on Apple platforms ``enrollSecurityKey(friendlyName:presentationContextProvider:)``
    /// does all three. The server must allow WebAuthn factors (`GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED`).
    public func enrollWebAuthn(friendlyName: String? = nil) async throws -> WebAuthnEnrollment {
        try await client.sendAuthorized(
            "POST", "factors", body: EnrollFactorRequest(factorType: FactorType.webauthn.rawValue, friendlyName: friendlyName),
            as: WebAuthnEnrollment.self)
    }

    /// Verifies a WebAuthn factor's challenge with the authenticator's answer: a new key for a
    /// challenge of type `create` (registering it), an assertion for one of type `request`. The
    /// session becomes ``AAL/aal2`` as with a code. A failed check throws
    /// ``LatchkeyError/isMFAVerificationFailed``; a key registered to another factor,
    /// ``LatchkeyError/isWebAuthnCredentialExists``.
    @discardableResult
    public func verify(factorID: UUID, challenge: FactorChallenge, credential: PasskeyCredential) async throws -> Session {
        let body = VerifyFactorRequest(
            challengeID: challenge.id.uuidString.lowercased(), code: nil,
            webauthn: WebAuthnFactorResponse(type: challenge.webauthn?.type ?? "request", credentialResponse: credential))
        let session = try await client.sendAuthorized("POST", Self.path(factorID, "verify"), body: body, as: Session.self)
        await client.setSession(session, event: .mfaChallengeVerified)
        return session
    }

    /// Creates a challenge for a factor: the code to verify next must answer it before it
    /// expires (``FactorChallenge/expiresAt``). For a phone factor this sends the code, over
    /// `channel` (SMS by default); only the newest challenge's code counts, and the server
    /// allows one per minute per factor (``LatchkeyError/isRateLimited`` sooner).
    ///
    /// Throws ``LatchkeyError/isMFAFactorNotFound`` when the user has no such factor.
    public func challenge(factorID: UUID, channel: SMSChannel? = nil) async throws -> FactorChallenge {
        try await client.sendAuthorized(
            "POST", Self.path(factorID, "challenge"), body: ChallengeFactorRequest(channel: channel?.rawValue), as: FactorChallenge.self)
    }

    /// Verifies a code from the authenticator app against a challenge. On success the server
    /// answers with a new ``AAL/aal2`` session (with a new refresh token; the old one stops
    /// working), which is stored like a sign-in's and announced as
    /// ``AuthEvent/mfaChallengeVerified``. Verifying an unverified factor also verifies it.
    ///
    /// Throws ``LatchkeyError/isMFAVerificationFailed`` for a wrong code,
    /// ``LatchkeyError/isMFAChallengeExpired`` for an expired challenge (create another),
    /// ``LatchkeyError/isMFAFactorNotFound``, and ``LatchkeyError/isRateLimited`` after too many
    /// wrong codes.
    @discardableResult
    public func verify(factorID: UUID, challengeID: UUID, code: String) async throws -> Session {
        let body = VerifyFactorRequest(challengeID: challengeID.uuidString.lowercased(), code: code)
        let session = try await client.sendAuthorized("POST", Self.path(factorID, "verify"), body: body, as: Session.self)
        await client.setSession(session, event: .mfaChallengeVerified)
        return session
    }

    /// Creates a challenge and verifies `code` against it at once: what an app usually wants
    /// for TOTP, since its code needs no message sent first (a phone factor's does: use
    /// ``challenge(factorID:channel:)``, then ``verify(factorID:challengeID:code:)``). See ``verify(factorID:challengeID:code:)``.
    @discardableResult
    public func challengeAndVerify(factorID: UUID, code: String) async throws -> Session {
        let challenge = try await challenge(factorID: factorID)
        return try await verify(factorID: factorID, challengeID: challenge.id, code: code)
    }

    /// Makes ten single-use recovery codes for when the second factor is lost (Latchkey's), replacing
    /// any earlier set. Show them once and ask the user to keep them; only their hashes are kept.
    /// Needs a verified factor and an ``AAL/aal2`` session (``LatchkeyError/isInsufficientAAL``).
    public func generateRecoveryCodes() async throws -> RecoveryCodes {
        try await client.sendAuthorized("POST", "recovery-codes", body: EmptyBody(), as: RecoveryCodes.self)
    }

    /// How many of the user's recovery codes are left.
    public func recoveryCodeStatus() async throws -> RecoveryCodeStatus {
        try await client.sendAuthorized("GET", "recovery-codes", body: nil, as: RecoveryCodeStatus.self)
    }

    /// Uses a recovery code in place of the second factor: the code is spent, and the server
    /// answers with a new ``AAL/aal2`` session, stored and announced as
    /// ``AuthEvent/mfaChallengeVerified``; the owner is emailed. A wrong or spent code throws
    /// ``LatchkeyError/isMFAVerificationFailed``.
    @discardableResult
    public func verifyRecoveryCode(_ code: String) async throws -> Session {
        let session = try await client.sendAuthorized(
            "POST", "recovery-codes/verify", body: VerifyRecoveryCodeRequest(code: code), as: Session.self)
        await client.setSession(session, event: .mfaChallengeVerified)
        return session
    }

    /// `{}`: a body with nothing to say.
    struct EmptyBody: Encodable, Sendable {}

    /// Removes a factor, then refreshes the session so that its level, ``AuthClient/currentUser``
    /// and its factors (and so ``assuranceLevel()``) follow: removing a verified factor brings
    /// the user's sessions back to ``AAL/aal1`` on the server.
    ///
    /// Removing a verified factor needs an ``AAL/aal2`` session
    /// (``LatchkeyError/isInsufficientAAL`` otherwise).
    @discardableResult
    public func unenroll(factorID: UUID) async throws -> UnenrolledFactor {
        let removed = try await client.sendAuthorized("DELETE", Self.path(factorID), body: nil, as: UnenrolledFactor.self)
        // The factor is gone whether or not the session can be refreshed now; the next refresh
        // brings the new level anyway.
        _ = try? await client.refreshSession()
        return removed
    }

    /// The signed-in user's factors, fetched from the server (which also refreshes
    /// ``AuthClient/currentUser``): all of them, and the verified TOTP, phone and WebAuthn ones.
    public func listFactors() async throws -> FactorList {
        FactorList(all: try await client.user().factors ?? [])
    }

    /// The stored session's assurance level, worked out here without asking the server: the
    /// access token's `aal` and `amr` claims (read, not verified) and whether its user has a
    /// verified factor. With nobody signed in, both levels are `nil`.
    ///
    /// The user's factors are those last seen: after enrolling on another device, call
    /// ``listFactors()`` (or ``AuthClient/user()``) first.
    public func assuranceLevel() async throws -> AssuranceLevel {
        guard let session = try await client.storedSession() else {
            return AssuranceLevel(current: nil, next: nil, currentAuthenticationMethods: [])
        }
        return AssuranceLevel(session: session)
    }

    static func path(_ factorID: UUID, _ action: String? = nil) -> String {
        let factor = "factors/" + factorID.uuidString.lowercased()
        return action.map { factor + "/" + $0 } ?? factor
    }
}

extension AuthClient {
    /// Multi-factor authentication: ``MFA/enroll(friendlyName:issuer:)``,
    /// ``MFA/challengeAndVerify(factorID:code:)``, ``MFA/assuranceLevel()`` and more.
    public nonisolated var mfa: MFA { MFA(client: self) }

    /// The stored session once restoring has finished, without refreshing it.
    func storedSession() async throws -> Session? {
        try await ready()
        return stored
    }
}
