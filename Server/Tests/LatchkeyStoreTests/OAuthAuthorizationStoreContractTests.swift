import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``OAuthAuthorizationStore`` on memory, SQLite and PostgreSQL (when
/// `LATCHKEY_TEST_DATABASE_URL` names a server): a request reads back whole and changes only while
/// pending for the user read; a code is redeemed once however many race for it; a consent is one
/// per user and client, and its revocation ends the client's sessions of the user and its codes.
@Suite struct OAuthAuthorizationStoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func eachStore(_ body: (any OAuthAuthorizationStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any OAuthAuthorizationStore, body)
    }

    /// A stored client and user, and a pending request of the client.
    static func setUp(_ store: any OAuthAuthorizationStore) async throws -> (OAuthClientRecord, UserRecord, OAuthAuthorizationRecord) {
        let client = OAuthClientStoreContractTests.client()
        try await store.insertOAuthClient(client, audit: [])
        let (user, identity) = StoreContractTests.user("grant-\(UUID().uuidString.prefix(8))@example.com", now: now)
        if let sql = store as? any AuthStore {
            try await sql.createUser(user, identity: identity, token: nil, outbox: [])
        } else {
            (store as? InMemoryStore)?.add(user)
        }
        return (client, try #require(try await store.user(id: user.id)), request(client))
    }

    static func request(_ client: OAuthClientRecord) -> OAuthAuthorizationRecord {
        OAuthAuthorizationRecord(
            id: UUID(), authorizationID: String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(32)), clientID: client.id,
            redirectURI: "https://app.example.com/cb", scope: "openid email", state: "st", resource: "https://api.example.com",
            challenge: PKCEChallenge(challenge: String(repeating: "c", count: 43), method: .s256), nonce: "n", createdAt: now,
            expiresAt: now.addingTimeInterval(600))
    }

    static func approved(_ request: OAuthAuthorizationRecord, user: UUID, code: String) -> OAuthAuthorizationRecord {
        var approved = request
        approved.userID = user
        approved.status = .approved
        approved.codeHash = OneTimeSecrets.linkHash(code)
        approved.aal = "aal2"
        approved.amr = [AuthenticationMethod(method: "password", timestamp: 7)]
        approved.approvedAt = now
        return approved
    }

    /// What a redemption decides when the request is approved: the client's session.
    static func issue(_ authorization: OAuthAuthorizationRecord?, _ user: UserRecord?) -> OAuthCodeRedemption {
        guard let authorization, let user, authorization.status == .approved else { return .refuse(.validation("no")) }
        let session = SessionRecord(
            id: UUID(), userID: user.id, aal: authorization.aal ?? "aal1", amr: authorization.amr, refreshSalt: [1, 2, 3],
            createdAt: now, updatedAt: now, oauthClientID: authorization.clientID, scopes: authorization.scope,
            resource: authorization.resource)
        var used = authorization
        used.status = .used
        used.sessionID = session.id
        return .issue(used, session, audit: [])
    }

    @Test func aRequestReadsBackWholeAndChangesOnlyWhilePendingForTheUserRead() async throws {
        try await Self.eachStore { store in
            let (client, user, request) = try await Self.setUp(store)
            try await store.insertOAuthAuthorization(request)
            #expect(try await store.oauthAuthorization(id: request.authorizationID) == request)
            #expect(try await store.oauthAuthorization(id: "missing") == nil)

            var claimed = request
            claimed.userID = user.id
            #expect(try await store.updateOAuthAuthorization(claimed, ifPendingFor: nil, consent: nil, audit: []))
            // A second claim decided on the first read changes nothing.
            #expect(try await store.updateOAuthAuthorization(claimed, ifPendingFor: nil, consent: nil, audit: []) == false)
            let consent = OAuthConsentRecord(
                id: UUID(), userID: user.id, clientID: client.id, scopes: ["openid", "email"], grantedAt: Self.now)
            let approved = Self.approved(request, user: user.id, code: "code-1")
            #expect(try await store.updateOAuthAuthorization(approved, ifPendingFor: user.id, consent: consent, audit: []))
            #expect(try await store.oauthAuthorization(id: request.authorizationID) == approved)
            #expect(try await store.updateOAuthAuthorization(approved, ifPendingFor: user.id, consent: nil, audit: []) == false)
            #expect(try await store.oauthConsent(userID: user.id, clientID: client.id) == consent)

            // A later approval replaces the consent's scopes, keeping one row.
            var wider = consent
            wider.scopes = ["openid", "email", "profile"]
            wider.grantedAt = Self.now.addingTimeInterval(5)
            let second = Self.request(client)
            try await store.insertOAuthAuthorization(second)
            var secondClaimed = second
            secondClaimed.userID = user.id
            #expect(try await store.updateOAuthAuthorization(secondClaimed, ifPendingFor: nil, consent: wider, audit: []))
            let stored = try #require(try await store.oauthConsent(userID: user.id, clientID: client.id))
            #expect(stored.id == consent.id && stored.scopes == wider.scopes && stored.grantedAt == wider.grantedAt)
            #expect(try await store.oauthConsents(userID: user.id).map(\.id) == [consent.id])
        }
    }

    @Test func racingRedemptionsOfOneCodeIssueOneSession() async throws {
        try await Self.eachStore { store in
            let (_, user, request) = try await Self.setUp(store)
            try await store.insertOAuthAuthorization(request)
            #expect(
                try await store.updateOAuthAuthorization(
                    Self.approved(request, user: user.id, code: "c"), ifPendingFor: nil, consent: nil, audit: []))
            let hash = OneTimeSecrets.linkHash("c")
            let issued = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        guard let (decision, _) = try await store.redeemOAuthCode(codeHash: hash, decide: Self.issue) else { return false }
                        if case .issue = decision { return true }
                        return false
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(issued == 1)
            let used = try #require(try await store.oauthAuthorization(id: request.authorizationID))
            #expect(used.status == .used && used.sessionID != nil)
            // The session it made is the client's, with the request's scopes, aal and resource.
            let sessions = try await (store as! any AccountReading).account(userID: user.id, sessionID: used.sessionID).session
            #expect(sessions?.oauthClientID == request.clientID && sessions?.scopes == "openid email" && sessions?.aal == "aal2")
            #expect(sessions?.resource == "https://api.example.com" && sessions?.amr.first?.method == "password")
            // Presented again: the decision sees it used, and a revocation ends that session.
            let again = try #require(
                try await store.redeemOAuthCode(codeHash: hash) { authorization, _ in
                    #expect(authorization?.status == .used)
                    return .revoke(sessionID: authorization?.sessionID, audit: [], .validation("reused"))
                })
            guard case .revoke = again.0 else {
                Issue.record("not revoked")
                return
            }
            #expect(try await (store as! any AccountReading).account(userID: user.id, sessionID: used.sessionID).session == nil)
            // The clean-up keeps a request for a day past its end, then deletes it.
            if let maintenance = store as? any MaintenanceStore {
                _ = try await maintenance.deleteExpired(now: request.expiresAt.addingTimeInterval(3600))
                #expect(try await store.oauthAuthorization(id: request.authorizationID) != nil)
                _ = try await maintenance.deleteExpired(now: request.expiresAt.addingTimeInterval(86401))
                #expect(try await store.oauthAuthorization(id: request.authorizationID) == nil)
            }
            // An unknown code is read as none.
            _ = try await store.redeemOAuthCode(codeHash: "none") { authorization, user in
                #expect(authorization == nil && user == nil)
                return .refuse(.validation("no"))
            }
        }
    }

    @Test func revokingAConsentEndsTheClientsSessionsAndCodesOfThatUserOnly() async throws {
        try await Self.eachStore { store in
            let (client, user, request) = try await Self.setUp(store)
            let other = OAuthClientStoreContractTests.client()
            try await store.insertOAuthClient(other, audit: [])
            // A session of the client (redeemed), and an approved code not yet spent.
            try await store.insertOAuthAuthorization(request)
            let consent = OAuthConsentRecord(id: UUID(), userID: user.id, clientID: client.id, scopes: ["email"], grantedAt: Self.now)
            #expect(
                try await store.updateOAuthAuthorization(
                    Self.approved(request, user: user.id, code: "one"), ifPendingFor: nil, consent: consent, audit: []))
            let redeemed = try await store.redeemOAuthCode(codeHash: OneTimeSecrets.linkHash("one"), decide: Self.issue)
            guard case .issue(_, let session, _) = try #require(redeemed).0 else {
                Issue.record("not issued")
                return
            }
            let pending = Self.request(client)
            try await store.insertOAuthAuthorization(pending)
            #expect(
                try await store.updateOAuthAuthorization(
                    Self.approved(pending, user: user.id, code: "two"), ifPendingFor: nil, consent: nil, audit: []))
            // Another client's grant stays.
            let otherConsent = OAuthConsentRecord(id: UUID(), userID: user.id, clientID: other.id, scopes: ["email"], grantedAt: Self.now)
            let otherRequest = Self.request(other)
            try await store.insertOAuthAuthorization(otherRequest)
            #expect(
                try await store.updateOAuthAuthorization(
                    Self.approved(otherRequest, user: user.id, code: "three"), ifPendingFor: nil, consent: otherConsent, audit: []))

            #expect(try await store.revokeOAuthConsent(userID: user.id, clientID: client.id, at: Self.now, audit: []))
            #expect(try await store.revokeOAuthConsent(userID: user.id, clientID: client.id, at: Self.now, audit: []) == false)
            #expect(try await (store as! any AccountReading).account(userID: user.id, sessionID: session.id).session == nil)
            #expect(try await store.oauthAuthorization(id: pending.authorizationID)?.status == .denied)
            #expect(try await store.oauthAuthorization(id: otherRequest.authorizationID)?.status == .approved)
            #expect(try await store.oauthConsent(userID: user.id, clientID: client.id)?.revokedAt == Self.now)
            #expect(try await store.oauthConsents(userID: user.id).map(\.clientID) == [other.id])

            // Deleting the other client ends its grant too.
            #expect(try await store.deleteOAuthClient(id: other.id, at: Self.now, audit: []))
            #expect(try await store.oauthConsents(userID: user.id).isEmpty)
            #expect(try await store.oauthAuthorization(id: otherRequest.authorizationID)?.status == .denied)
        }
    }
}

/// The record that makes a wallet's signed message single-use (#41): the rate-limit store's
/// counter under `web3:used:<digest>`, on memory, SQLite and PostgreSQL: the first use counts 1,
/// a replay more, another message 1, and the clean-up forgets it once the message is unusable.
@Suite struct Web3MessageRecordContractTests {
    @Test func aSignedMessageIsSpentOnce() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any RateLimitStore) { store in
            let epoch = Date(timeIntervalSince1970: 0)
            let until = Date(timeIntervalSince1970: 1_800_000_600)
            let key = "web3:used:\(UUID().uuidString)"
            #expect(try await store.incrementRateLimit(key: key, windowStart: epoch, expiresAt: until) == 1)
            #expect(try await store.incrementRateLimit(key: key, windowStart: epoch, expiresAt: until) == 2)
            #expect(try await store.incrementRateLimit(key: key + "x", windowStart: epoch, expiresAt: until) == 1)
            if let maintenance = store as? any MaintenanceStore {
                _ = try await maintenance.deleteExpired(now: until.addingTimeInterval(-1))
                #expect(try await store.rateLimitCount(key: key, windowStart: epoch) == 2)
                _ = try await maintenance.deleteExpired(now: until.addingTimeInterval(1))
                #expect(try await store.rateLimitCount(key: key, windowStart: epoch) == 0)
            }
        }
    }
}
