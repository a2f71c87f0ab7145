import Foundation
import LatchkeyAPI
import Synchronization

/// The kinds of verification `/verify` understands.
public enum VerificationType: String, Sendable {
    case signup, email, magiclink, recovery
    case emailChange = "email_change"
    case sms
    case phoneChange = "phone_change"
    case invite

    /// Which stored tokens this type may redeem.
    var kinds: [OneTimeTokenKind] {
        switch self {
        case .signup: [.confirmation]
        case .magiclink: [.magiclink, .confirmation]
        case .email: [.confirmation, .magiclink]
        case .recovery: [.recovery]
        case .emailChange: [.emailChangeCurrent, .emailChangeNew]
        case .sms: [.sms]
        case .phoneChange: [.phoneChange]
        case .invite: [.invite]
        }
    }

    /// The `amr` method a session proved this way gets.
    var method: String {
        switch self {
        case .signup: "otp"
        case .magiclink: "magiclink"
        case .email: "otp"
        case .recovery: "recovery"
        case .emailChange: "email_change"
        case .sms: "otp"
        case .phoneChange: "phone_change"
        case .invite: "invite"
        }
    }
}

extension AuthService {
    /// The type named in a request, or a clear error.
    public func verificationType(_ raw: String?) throws -> VerificationType {
        guard let raw, !raw.isEmpty else { throw AuthError.validation("Verify requires a verification type") }
        guard let type = VerificationType(rawValue: raw) else { throw AuthError.validation("Unsupported verification type") }
        return type
    }

    /// `POST /verify`: a code with its address, or a link's `token_hash`. Returns the session (or
    /// an email change's half-way message) and where a link should send the user.
    ///
    /// The client's `/verify` budget is counted in the transaction that redeems an email code (one
    /// commit for the whole request), and on its own before the other kinds of redemption.
    public func verify(_ request: VerifyRequest, client: ClientInfo) async throws -> VerifyOutcome {
        try await limiter.counting([LimitBudget.Limit("ip:verify:\(client.ip)", configuration.rateLimits.verifyPerIP)]) {
            budget in
            try await verify(request, client: client, budget: budget)
        }
    }

    private func verify(_ request: VerifyRequest, client: ClientInfo, budget: LimitBudget) async throws -> VerifyOutcome {
        let type = try verificationType(request.type)
        if let tokenHash = request.tokenHash, !tokenHash.isEmpty {
            try await budget.charge()
            return try await redeemLink(tokenHash, type: type, client: client)
        }
        guard let token = request.token, !token.isEmpty else {
            throw AuthError.validation("Verify requires either a token or a token hash")
        }
        let redirect = redirects.resolve(request.redirectTo)
        let outcome: RedemptionOutcome
        if type == .sms || type == .phoneChange || (request.email == nil && request.phone != nil) {
            guard type == .sms || type == .phoneChange else {
                throw AuthError.validation("A phone number is verified with type sms or phone_change")
            }
            try await budget.charge()
            outcome = try await verifyPhone(request, type: type, token: token, client: client)
            let redeemed = try Self.redeemed(outcome)
            guard let session = redeemed.session else { throw AuthError.otpInvalid }
            return .session(try await sessionResponse(user: redeemed.user, session: session), redirectTo: redirect)
        }
        let email = try canonicalEmail(request.email)
        // A code is short and numeric; anything else cannot match and is not worth a lookup.
        guard token.utf8.count <= 16 else { throw AuthError.otpInvalid }
        if type == .emailChange {
            try await budget.charge()
            outcome = try await verifyEmailChange(email: email, token: token, client: client)
        } else {
            // One transaction finds the address's user and newest code, compares and redeems. An
            // unknown address looks for the code of an id no token has, the same work as a known
            // address with no code, and answers exactly like it.
            let now = time.now()
            let subject = LockedBox<UUID>()
            do {
                outcome = try await budget.spend { limits in
                    try await store.redeemOneTimeToken(
                        .newestForEmail(email, kinds: type.kinds), now: now, maxAttempts: configuration.otp.maxAttempts,
                        limits: limits,
                        matches: { record in OneTimeSecrets.codeMatches(token, userID: record.userID, storedHash: record.codeHash) },
                        failed: codeFailureAudit(client: client),
                        complete: { user, _ in
                            subject.value = user.id
                            return try redemption(user: user, method: type.method, client: client, now: now)
                        })
                }
            } catch let error as AuthError where error.code == .userBanned {
                try await recordFailedSignIn(subject.value, method: type.method, reason: error.code.rawValue, client: client)
                throw error
            }
        }
        let redeemed = try Self.redeemed(outcome)
        guard let session = redeemed.session else { return .pending(Self.emailChangeHalfway, redirectTo: redirect) }
        return .session(
            try await sessionResponse(user: redeemed.user, session: session, account: redeemed.account), redirectTo: redirect)
    }

    /// What a successful redemption stored, or the error a refused code answers with.
    static func redeemed(_ outcome: RedemptionOutcome) throws -> TokenRedemption {
        switch outcome {
        case .redeemed(let redemption): return redemption
        case .mismatch(let remaining):
            throw AuthError.codeRefused(reason: remaining > 0 ? "invalid" : "exhausted", attemptsRemaining: remaining)
        case .expired: throw AuthError.codeRefused(reason: "expired", attemptsRemaining: nil)
        case .exhausted: throw AuthError.codeRefused(reason: "exhausted", attemptsRemaining: 0)
        case .notFound: throw noCodeRefusal
        }
    }

    /// What a code answers when its address has no code to compare with, known or not.
    static let noCodeRefusal = AuthError.codeRefused(reason: "invalid", attemptsRemaining: nil)

    /// What redeeming a link gives: a session, or (a PKCE link opened in a browser) a code for the
    /// app to exchange with its verifier.
    public enum LinkOutcome: Sendable {
        case session(Session, redirectTo: String)
        case authCode(String, redirectTo: String)
        /// The first of two email-change confirmations.
        case pending(String, redirectTo: String)
    }

    /// Redeems a link secret (what the email link carries, accepted as `token_hash`) and returns
    /// a session, or an email change's half-way message.
    public func redeemLink(_ secret: String, type: VerificationType, client: ClientInfo) async throws -> VerifyOutcome {
        switch try await redeemLink(secret, type: type, client: client, inBrowser: false) {
        case .session(let session, let redirect): return .session(session, redirectTo: redirect)
        case .pending(let message, let redirect): return .pending(message, redirectTo: redirect)
        case .authCode: throw AuthError.linkInvalid
        }
    }

    /// Redeems a link secret. In a browser (the link's page or GoTrue's direct redirect), a link
    /// requested with a PKCE challenge yields an authorization code instead of a session: the
    /// tokens never appear in a URL, and only the app holding the verifier can finish.
    public func redeemLink(_ secret: String, type: VerificationType, client: ClientInfo, inBrowser: Bool) async throws -> LinkOutcome {
        guard secret.utf8.count <= 128 else { throw AuthError.linkInvalid }
        let now = time.now()
        let redirectBox = LockedBox<String>()
        let subject = LockedBox<UUID>()
        let authCode = OneTimeSecrets.newLinkSecret()
        let flowExpiry = Double(configuration.flowStateExpiry)
        let method = type == .signup ? "otp" : type == .email ? "magiclink" : type.method
        let outcome: RedemptionOutcome
        do {
            outcome = try await store.redeemOneTimeToken(
                .linkHash(OneTimeSecrets.linkHash(secret), kinds: type.kinds), now: now,
                maxAttempts: configuration.otp.maxAttempts, matches: { _ in true },
                complete: { user, record in
                    redirectBox.value = record.redirectTo
                    subject.value = user.id
                    var result =
                        type == .emailChange
                        ? try emailChangeRedemption(user: user, token: record, client: client, now: now)
                        : try redemption(user: user, method: method, client: client, now: now)
                    if inBrowser, let challenge = record.challenge, result.session != nil {
                        result.session = nil
                        // The sign-in happens when the app exchanges the code.
                        result.audit.removeAll { $0.action == .login }
                        result.flowState = FlowStateRecord(
                            id: random.uuid(), authCodeHash: OneTimeSecrets.linkHash(authCode), userID: user.id, challenge: challenge,
                            authenticationMethod: method, createdAt: now, expiresAt: now.addingTimeInterval(flowExpiry))
                    }
                    return result
                })
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError.emailExists
        } catch let error as AuthError where error.code == .userBanned {
            try await recordFailedSignIn(subject.value, method: method, reason: error.code.rawValue, client: client)
            throw error
        }
        guard case .redeemed(let redemption) = outcome else { throw AuthError.linkInvalid }
        let redirect = redirects.resolve(redirectBox.value)
        if let session = redemption.session {
            return .session(try await sessionResponse(user: redemption.user, session: session), redirectTo: redirect)
        }
        if redemption.flowState != nil { return .authCode(authCode, redirectTo: redirect) }
        return .pending(Self.emailChangeHalfway, redirectTo: redirect)
    }

    /// What a successful redemption stores: the user confirmed and signed in, and a session.
    func redemption(user: UserRecord, method: String, client: ClientInfo, now: Date) throws -> TokenRedemption {
        if user.isBanned(at: now) { throw AuthError.userBanned }
        let updated = user.signedInByEmail(at: now)
        return TokenRedemption(
            user: updated, session: newSession(for: updated, method: method, client: client, now: now),
            audit: [loginEvent(updated, method: method, client: client)])
    }
}

/// Carries a value out of a `@Sendable` closure that the store calls synchronously.
final class LockedBox<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
