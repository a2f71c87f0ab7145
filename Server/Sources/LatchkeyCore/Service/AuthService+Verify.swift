import Foundation
import LatchkeyAPI
import Synchronization

/// The kinds of verification `/verify` understands.
public enum VerificationType: String, Sendable {
    case signup, email, magiclink

    /// Which stored tokens this type may redeem.
    var kinds: [OneTimeTokenKind] {
        switch self {
        case .signup: [.confirmation]
        case .magiclink: [.magiclink, .confirmation]
        case .email: [.confirmation, .magiclink]
        }
    }

    /// The `amr` method a session proved this way gets.
    var method: String {
        switch self {
        case .signup: "otp"
        case .magiclink: "magiclink"
        case .email: "otp"
        }
    }
}

extension AuthService {
    /// The type named in a request, or a clear error.
    public func verificationType(_ raw: String?) throws -> VerificationType {
        guard let raw, !raw.isEmpty else { throw AuthError.validation("Verify requires a verification type") }
        guard let type = VerificationType(rawValue: raw) else {
            if ["recovery", "invite", "email_change", "sms", "phone_change"].contains(raw) {
                throw AuthError(.validationFailed, "Verification type \(raw) is not available on this server")
            }
            throw AuthError.validation("Verify requires a verification type")
        }
        return type
    }

    /// `POST /verify`: a code with its address, or a link's `token_hash`. Returns the session and
    /// where a link should send the user.
    public func verify(_ request: VerifyRequest, client: ClientInfo) async throws -> (Session, redirectTo: String) {
        try await limiter.hit("ip:verify:\(client.ip)", configuration.rateLimits.verifyPerIP)
        let type = try verificationType(request.type)
        if let tokenHash = request.tokenHash, !tokenHash.isEmpty {
            return try await redeemLink(tokenHash, type: type, client: client)
        }
        guard let token = request.token, !token.isEmpty else {
            throw AuthError.validation("Verify requires either a token or a token hash")
        }
        if request.email == nil, request.phone != nil {
            throw AuthError(.phoneProviderDisabled, "Unsupported phone provider")
        }
        let email = try canonicalEmail(request.email)
        // A code is short and numeric; anything else cannot match and is not worth a lookup.
        guard token.utf8.count <= 16, let user = try await store.user(email: email) else { throw AuthError.otpInvalid }
        let now = time.now()
        let outcome = try await store.redeemOneTimeToken(
            .newest(userID: user.id, kinds: type.kinds), now: now, maxAttempts: configuration.otp.maxAttempts,
            matches: { record in OneTimeSecrets.codeMatches(token, userID: record.userID, storedHash: record.codeHash) },
            complete: { user, _ in try redemption(user: user, method: type.method, client: client, now: now) })
        let redeemedUser: UserRecord
        let session: SessionRecord
        switch outcome {
        case .redeemed(let user, let created): (redeemedUser, session) = (user, created)
        case .mismatch(let remaining):
            throw AuthError.codeRefused(reason: remaining > 0 ? "invalid" : "exhausted", attemptsRemaining: remaining)
        case .expired: throw AuthError.codeRefused(reason: "expired", attemptsRemaining: nil)
        case .exhausted: throw AuthError.codeRefused(reason: "exhausted", attemptsRemaining: 0)
        case .notFound: throw AuthError.codeRefused(reason: "invalid", attemptsRemaining: nil)
        }
        let redirect = redirects.resolve(request.redirectTo)
        return (try await sessionResponse(user: redeemedUser, session: session), redirect)
    }

    /// Redeems a link secret (what the email link carries, accepted as `token_hash`).
    public func redeemLink(_ secret: String, type: VerificationType, client: ClientInfo) async throws -> (Session, redirectTo: String) {
        guard secret.utf8.count <= 128 else { throw AuthError.linkInvalid }
        let now = time.now()
        let redirectBox = RedirectBox()
        let outcome = try await store.redeemOneTimeToken(
            .linkHash(OneTimeSecrets.linkHash(secret), kinds: type.kinds), now: now,
            maxAttempts: configuration.otp.maxAttempts, matches: { _ in true },
            complete: { user, record in
                redirectBox.value = record.redirectTo
                return try redemption(user: user, method: type == .signup ? "otp" : "magiclink", client: client, now: now)
            })
        guard case .redeemed(let user, let session) = outcome else { throw AuthError.linkInvalid }
        return (try await sessionResponse(user: user, session: session), redirects.resolve(redirectBox.value))
    }

    /// What a successful redemption stores: the user confirmed and signed in, and a session.
    func redemption(user: UserRecord, method: String, client: ClientInfo, now: Date) throws -> TokenRedemption {
        if user.isBanned(at: now) { throw AuthError.userBanned }
        var updated = user
        if updated.emailConfirmedAt == nil {
            updated.emailConfirmedAt = now
            updated.userMetadata["email_verified"] = true
        }
        updated.lastSignInAt = now
        updated.updatedAt = now
        return TokenRedemption(user: updated, session: newSession(for: updated, method: method, client: client, now: now))
    }
}

/// Carries a value out of a `@Sendable` closure that the store calls synchronously.
final class RedirectBox: Sendable {
    private let storage = Mutex<String?>(nil)
    var value: String? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
