import Foundation
import LatchkeyAPI

/// Hands a session a hosted page made to the app that opened the page: a one-time authorization
/// code bound to the app's PKCE challenge, exchanged at `POST /token?grant_type=pkce` for that
/// session's tokens. The browser never sees a token, and a code caught on its way back is useless
/// without the app's verifier.
public struct SessionHandOff: Sendable {
    let store: any AuthCodeExchangeStore
    let records: Records
    /// Seconds a code stays good (`GOTRUE_FLOW_STATE_EXPIRY_DURATION`).
    let lifetime: TimeInterval

    public init(store: any AuthCodeExchangeStore, records: Records, lifetime: TimeInterval) {
        self.store = store
        self.records = records
        self.lifetime = lifetime
    }

    /// A new code for `session` (an answer this server just made), for the app's `challenge`.
    public func code(for session: Session, challenge: PKCEChallenge, method: String) async throws -> String {
        guard let token = records.answers.refreshCodec.peek(session.refreshToken) else {
            throw AuthError(.unexpectedFailure, "A session this server made cannot be read")
        }
        return try await code(userID: session.user.id, sessionID: token.sessionID, challenge: challenge, method: method)
    }

    /// A new code for the session `sessionID` of `userID`, for the app's `challenge`.
    public func code(userID: UUID, sessionID: UUID, challenge: PKCEChallenge, method: String) async throws -> String {
        let code = records.random.linkSecret()
        let now = records.time.now()
        try await store.createFlowState(
            FlowStateRecord(
                id: records.random.uuid(), authCodeHash: OneTimeSecrets.linkHash(code), userID: userID, challenge: challenge,
                authenticationMethod: method, createdAt: now, expiresAt: now.addingTimeInterval(lifetime), sessionID: sessionID))
        return code
    }
}
