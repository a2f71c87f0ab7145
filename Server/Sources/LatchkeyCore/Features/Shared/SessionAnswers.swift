import Foundation
import LatchkeyAPI

/// Builds what every sign-in answers: new session records, and the wire ``Session`` for a stored
/// one (a new access token, the current refresh token, the user with identities and factors).
/// The one place that knows the claims an access token carries.
public struct SessionAnswers: Sendable {
    let issuer: any TokenIssuing
    let refreshCodec: RefreshTokenCodec
    let jwt: JWTSettings
    /// The `iss` of every token this server signs.
    let issuerClaim: String
    let accounts: any AccountReading
    let time: any TimeSource
    let random: any RandomSource
    /// The operator's hooks; `customize-access-token` sees every access token's claims.
    public let hooks: Hooks

    /// - Parameters:
    ///   - externalURL: the `iss` claim when `jwt.issuer` is empty (GoTrue's default).
    ///   - serverSecret: refresh tokens are MACed under a key derived from it.
    public init(
        issuer: any TokenIssuing, serverSecret: [UInt8], jwt: JWTSettings, externalURL: String, accounts: any AccountReading,
        time: any TimeSource, random: any RandomSource, hooks: Hooks = .none
    ) {
        self.issuer = issuer
        self.refreshCodec = RefreshTokenCodec(serverSecret: serverSecret)
        self.jwt = jwt
        self.issuerClaim = jwt.issuerClaim(externalURL: externalURL)
        self.accounts = accounts
        self.time = time
        self.random = random
        self.hooks = hooks
    }

    /// A new session record for `user`, proved by `method`.
    public func newSession(for user: UserRecord, method: String, client: ClientInfo, now: Date) -> SessionRecord {
        SessionRecord.new(
            for: user, method: method, client: client, id: random.orderedUUID(at: now), refreshSalt: random.bytes(32), now: now)
    }

    /// The wire session for a stored session: a new access token and the current refresh token.
    /// The user's identities and factors come from `account` when the store read them with the
    /// session (in the transaction that stored it), else from a read of their own.
    ///
    /// With a `customize-access-token` hook, the hook's claims are signed. When the hook fails, so
    /// does the sign-in: a session just made is discarded (no token of it ever left the server),
    /// and a refreshed one keeps its previous refresh token, which the reuse interval still admits.
    public func answer(
        user: UserRecord, session: SessionRecord, account: AccountRecords? = nil, weakPassword: WeakPassword? = nil
    ) async throws -> Session {
        let now = time.now()
        let expiresAt = Int(now.timeIntervalSince1970) + jwt.expiry
        var claims = AccessTokenClaims(
            iss: issuerClaim, sub: user.id.lowercasedString, aud: jwt.audience, exp: expiresAt,
            iat: Int(now.timeIntervalSince1970), email: user.email ?? "", phone: user.phone ?? "",
            appMetadata: user.appMetadata, userMetadata: user.userMetadata, role: user.role, aal: session.aal,
            amr: session.amr, sessionID: session.id.lowercasedString, isAnonymous: user.isAnonymous)
        if let client = session.oauthClientID {
            claims.clientID = client.lowercasedString
            claims.scope = session.scopes ?? ""
            claims.resource = session.resource
        }
        let accessToken = try await issuer.sign(try await customized(claims, user: user, session: session))
        let wired: User
        if let account {
            wired = Self.wire(user, identities: account.identities, factors: account.factors)
        } else {
            wired = try await wireUser(user)
        }
        let refreshToken = refreshCodec.encode(sessionID: session.id, counter: session.refreshCounter, salt: session.refreshSalt)
        return Session(
            accessToken: accessToken, expiresIn: jwt.expiry, expiresAt: expiresAt, refreshToken: refreshToken, user: wired,
            weakPassword: weakPassword)
    }

    /// `claims` as the custom access token hook makes them, when it is on.
    func customized(_ claims: AccessTokenClaims, user: UserRecord, session: SessionRecord) async throws -> AccessTokenClaims {
        guard hooks.isEnabled(.customAccessToken) else { return claims }
        do {
            return try await hooks.customize(claims, userID: user.id, method: session.amr.last?.method ?? "")
        } catch {
            if session.refreshCounter == 0, session.refreshedAt == nil { try? await hooks.store?.deleteSession(id: session.id, audit: []) }
            throw error
        }
    }

    /// The wire user with its identities and its factors (unverified ones too, as GoTrue; left
    /// out when there are none).
    public func wireUser(_ user: UserRecord) async throws -> User {
        let account = try await accounts.account(userID: user.id, sessionID: nil)
        return Self.wire(user, identities: account.identities, factors: account.factors)
    }

    static func wire(_ user: UserRecord, identities: [IdentityRecord], factors: [FactorRecord]) -> User {
        var wire = user.wire(identities: identities)
        wire.factors = factors.isEmpty ? nil : factors.map(\.wire)
        return wire
    }
}

extension SessionRecord {
    /// A new session of `user`, signed in by `method` from `client` at `now`, with the id and
    /// refresh salt drawn for it.
    public static func new(
        for user: UserRecord, method: String, client: ClientInfo, id: UUID, refreshSalt: [UInt8], now: Date
    ) -> SessionRecord {
        SessionRecord(
            id: id, userID: user.id, amr: [AuthenticationMethod(method: method, timestamp: Int(now.timeIntervalSince1970))],
            refreshSalt: refreshSalt, refreshedAt: nil, userAgent: client.userAgent, ip: client.ip, createdAt: now, updatedAt: now)
    }
}
