import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``FactorStore``, held against the in-memory store, SQLite and PostgreSQL (when
/// `LATCHKEY_TEST_DATABASE_URL` names a server): caps and names, the verification's read, and its
/// write applied all or nothing on its preconditions.
@Suite struct FactorStoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func eachStore(_ body: (any FactorStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any FactorStore, body)
    }

    /// A user with two sessions (the first one's device holds a key, and so does the second's),
    /// stored in whichever store this is.
    struct Account {
        let user: UserRecord
        let session: SessionRecord
        let other: SessionRecord
    }

    static func account(_ store: any FactorStore) async throws -> Account {
        let (user, identity) = StoreContractTests.user("mfa-\(UUID().uuidString.prefix(8))@example.com", now: now)
        let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
        let other = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [2], createdAt: now, updatedAt: now)
        let keys = [session, other].map {
            DeviceKeyRecord(id: UUID(), userID: user.id, name: "key of \($0.id)", publicKey: [:], createdAt: now, sessionID: $0.id)
        }
        if let sql = store as? any AuthStore {
            try await sql.createUser(user, identity: identity, token: nil, outbox: [])
            // Each sign-in stores the user as it reads it now (the write is conditional on its version).
            for signedIn in [session, other] { try await sql.createSession(signedIn, user: try #require(try await sql.user(id: user.id))) }
            for key in keys { #expect(try await sql.createDeviceKey(key, limit: 10, audit: [])) }
        } else if let memory = store as? InMemoryStore {
            memory.add(user)
            memory.add(session)
            memory.add(other)
            for key in keys { memory.add(key) }
        }
        return Account(user: user, session: session, other: other)
    }

    static func session(_ store: any FactorStore, _ id: UUID) async throws -> SessionRecord? {
        if let sql = store as? any AuthStore { return try await sql.session(id: id) }
        return (store as? InMemoryStore)?.session(id: id)
    }

    static func deviceKeys(_ store: any FactorStore, _ userID: UUID) async throws -> [DeviceKeyRecord] {
        try await (store as! any DeviceKeyStore).deviceKeys(userID: userID)
    }

    static func auditActions(_ store: any FactorStore, _ userID: UUID) async throws -> [AuditAction] {
        let query = AuditQuery(userID: userID, limit: 50)
        return try await (store as! any AuditLogStore).auditEvents(query).events.map(\.action)
    }

    static func factor(_ userID: UUID, name: String? = nil, at date: Date = now) -> FactorRecord {
        FactorRecord(id: UUID(), userID: userID, friendlyName: name, sealedSecret: "sealed", createdAt: date, updatedAt: date)
    }

    static func event(_ action: AuditAction, _ userID: UUID, at date: Date = now) -> AuditEvent {
        AuditEvent(
            action: action, actorID: userID, actorName: "ada", userID: userID, ip: nil, userAgent: nil, details: [:], createdAt: date)
    }

    /// A factor of the account with an open challenge, and what a verification reads of them.
    static func challenged(_ store: any FactorStore, _ account: Account) async throws -> FactorVerificationState {
        let factor = factor(account.user.id)
        #expect(try await store.createFactor(factor, limit: 10, audit: []))
        let challenge = FactorChallengeRecord(
            id: UUID(), factorID: factor.id, ip: "192.0.2.1", createdAt: now, expiresAt: now.addingTimeInterval(300))
        try await store.createChallenge(challenge)
        return try await store.factorVerification(
            factorID: factor.id, userID: account.user.id, challengeID: challenge.id, sessionID: account.session.id)
    }

    /// What a right code writes for `state`: the factor verified at `step`, the session raised.
    static func acceptance(_ state: FactorVerificationState, _ account: Account, step: Int64 = 100) throws -> FactorWrite {
        let seen = try #require(state.factor)
        let session = try #require(state.session)
        var factor = seen
        factor.status = .verified
        factor.lastUsedStep = step
        var raised = session
        raised.aal = "aal2"
        raised.amr = [AuthenticationMethod(method: "totp", timestamp: 1)]
        raised.refreshCounter += 2
        return FactorWrite(
            seen: seen, factor: factor, audit: [event(.mfaVerified, account.user.id)],
            acceptance: FactorAcceptance(
                challengeID: try #require(state.challenge).id, seenSession: session, session: raised, outbox: [],
                endingOtherAAL1Sessions: true))
    }

    @Test func factorsAreCappedNamedAndTheirOwn() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let bob = try await Self.account(store)
            let first = Self.factor(ada.user.id, name: "phone")
            #expect(try await store.createFactor(first, limit: 2, audit: [Self.event(.factorEnrolled, ada.user.id)]))
            await #expect(throws: StoreError.self) {
                try await store.createFactor(Self.factor(ada.user.id, name: "phone"), limit: 2, audit: [])
            }
            #expect(try await store.createFactor(Self.factor(bob.user.id, name: "phone"), limit: 2, audit: []))
            let second = Self.factor(ada.user.id, at: Self.now.addingTimeInterval(1))
            #expect(try await store.createFactor(second, limit: 2, audit: []))
            #expect(try await !store.createFactor(Self.factor(ada.user.id), limit: 2, audit: []))
            #expect(try await store.factors(userID: ada.user.id).map(\.id) == [first.id, second.id])
            #expect(try await store.user(id: ada.user.id)?.email == ada.user.email)
            #expect(try await Self.auditActions(store, ada.user.id) == [.factorEnrolled])
        }
    }

    @Test func aVerificationReadsTheFactorItsChallengeAndTheSession() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let state = try await Self.challenged(store, ada)
            let factor = try #require(state.factor)
            let challenge = try #require(state.challenge)
            #expect(challenge.ip == "192.0.2.1" && challenge.expiresAt == Self.now.addingTimeInterval(300))
            #expect(state.session?.id == ada.session.id)
            #expect(try await store.factors(userID: ada.user.id).first?.lastChallengedAt == Self.now)
            // Another user reads nothing of them; a challenge of another factor is not this one's.
            let bob = try await Self.account(store)
            let theirs = try await store.factorVerification(
                factorID: factor.id, userID: bob.user.id, challengeID: challenge.id, sessionID: ada.session.id)
            #expect(theirs.factor == nil && theirs.session == nil)
            let elsewhere = try await store.factorVerification(
                factorID: UUID(), userID: ada.user.id, challengeID: challenge.id, sessionID: ada.session.id)
            #expect(elsewhere.challenge == nil)
            try await store.spendChallenge(id: challenge.id, factorID: factor.id)
            let spent = try await store.factorVerification(
                factorID: factor.id, userID: ada.user.id, challengeID: challenge.id, sessionID: ada.session.id)
            #expect(spent.challenge == nil && spent.factor != nil)
        }
    }

    /// A wrong code's count is written only while the factor is as it was read.
    @Test func aRefusalIsWrittenOnlyOnItsPrecondition() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let state = try await Self.challenged(store, ada)
            let seen = try #require(state.factor)
            var counted = seen
            counted.failedAttempts = 1
            let write = FactorWrite(seen: seen, factor: counted, audit: [Self.event(.codeFailed, ada.user.id)])
            #expect(try await store.recordFactorVerification(write))
            #expect(try await !store.recordFactorVerification(write))
            var locked = counted
            locked.failedAttempts = 0
            locked.lockedUntil = Self.now.addingTimeInterval(900)
            #expect(try await store.recordFactorVerification(FactorWrite(seen: counted, factor: locked, audit: [])))
            // The lock is part of the precondition: a write that read the factor unlocked fails.
            #expect(try await !store.recordFactorVerification(FactorWrite(seen: seen, factor: counted, audit: [])))
            let stored = try #require(try await store.factors(userID: ada.user.id).first)
            #expect(stored.failedAttempts == 0 && stored.lockedUntil == Self.now.addingTimeInterval(900))
            #expect(try await Self.auditActions(store, ada.user.id) == [.codeFailed])
        }
    }

    @Test func ofRacingWritesOneIsApplied() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let seen = try #require(try await Self.challenged(store, ada).factor)
            var once = seen
            once.failedAttempts = 1
            let counted = once
            let written = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.recordFactorVerification(FactorWrite(seen: seen, factor: counted, audit: [])) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(written == 1)
            #expect(try await store.factors(userID: ada.user.id).first?.failedAttempts == 1)
        }
    }

    /// A right code spends its challenge, raises the session and, on a factor's first
    /// verification, ends the user's other aal1 sessions and their devices' keys.
    @Test func anAcceptanceSpendsTheChallengeRaisesTheSessionAndEndsTheOthers() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let state = try await Self.challenged(store, ada)
            let write = try Self.acceptance(state, ada)
            #expect(try await store.recordFactorVerification(write))
            let raised = try #require(try await Self.session(store, ada.session.id))
            #expect(raised.aal == "aal2" && raised.refreshCounter == 2 && raised.amr.map(\.method) == ["totp"])
            #expect(try await Self.session(store, ada.other.id) == nil)
            #expect(try await Self.deviceKeys(store, ada.user.id).map(\.sessionID) == [ada.session.id])
            let factor = try #require(try await store.factors(userID: ada.user.id).first)
            #expect(factor.status == .verified && factor.lastUsedStep == 100)
            #expect(try await Self.auditActions(store, ada.user.id) == [.mfaVerified])
            // Spent: the same acceptance cannot be written twice.
            #expect(try await !store.recordFactorVerification(write))
            let reread = try await store.factorVerification(
                factorID: factor.id, userID: ada.user.id, challengeID: write.acceptance!.challengeID, sessionID: ada.session.id)
            #expect(reread.challenge == nil)
        }
    }

    /// An acceptance whose session moved on (a refresh) or whose challenge was spent writes
    /// nothing at all: the factor is not verified either.
    @Test func anAcceptanceOnAStaleSessionOrSpentChallengeWritesNothing() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let state = try await Self.challenged(store, ada)
            var stale = try Self.acceptance(state, ada)
            stale.acceptance?.seenSession.refreshCounter = 7
            #expect(try await !store.recordFactorVerification(stale))
            var otherLevel = try Self.acceptance(state, ada)
            otherLevel.acceptance?.seenSession.aal = "aal2"
            #expect(try await !store.recordFactorVerification(otherLevel))
            let factor = try #require(try await store.factors(userID: ada.user.id).first)
            #expect(factor.status == .unverified && factor.lastUsedStep == nil)
            #expect(try await Self.session(store, ada.session.id)?.aal == "aal1")
            #expect(try await Self.session(store, ada.other.id) != nil)
            #expect(try await Self.deviceKeys(store, ada.user.id).count == 2)
            try await store.spendChallenge(id: try #require(state.challenge).id, factorID: factor.id)
            #expect(try await !store.recordFactorVerification(try Self.acceptance(state, ada)))
            #expect(try await store.factors(userID: ada.user.id).first?.status == .unverified)
            #expect(try await Self.auditActions(store, ada.user.id).isEmpty)
        }
    }

    @Test func deletingAVerifiedFactorBringsSessionsBackToAAL1() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let state = try await Self.challenged(store, ada)
            #expect(try await store.recordFactorVerification(try Self.acceptance(state, ada)))
            let factor = try #require(state.factor)
            #expect(
                try await store.deleteFactor(
                    id: factor.id, userID: UUID(), downgradingSessions: true, audit: [], outbox: []) == nil)
            let deleted = try await store.deleteFactor(
                id: factor.id, userID: ada.user.id, downgradingSessions: true,
                audit: [Self.event(.factorUnenrolled, ada.user.id, at: Self.now.addingTimeInterval(1))],
                outbox: [])
            #expect(deleted?.id == factor.id)
            let session = try #require(try await Self.session(store, ada.session.id))
            #expect(session.aal == "aal1" && session.amr.isEmpty)
            #expect(try await store.factors(userID: ada.user.id).isEmpty)
            let actions = try await Self.auditActions(store, ada.user.id)
            #expect(actions == [.factorUnenrolled, .mfaVerified])
        }
    }

    /// Phone factors (#39): the number and a challenge's code hash kept, a new enrolment for a
    /// number replacing the unverified ones, a challenge with a code replacing the factor's
    /// others, and a second verified factor for one number refused as a duplicate.
    @Test func phoneFactorsKeepTheirNumberTheirNewestCodeAndOneVerifiedFactorPerNumber() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            func phoneFactor(_ name: String) -> FactorRecord {
                FactorRecord(
                    id: UUID(), userID: ada.user.id, friendlyName: name, factorType: "phone", sealedSecret: "", createdAt: Self.now,
                    updatedAt: Self.now, phone: "447700900123")
            }
            let first = phoneFactor("first")
            #expect(try await store.createFactor(first, limit: 10, audit: []))
            let second = phoneFactor("second")
            #expect(try await store.createFactor(second, limit: 10, audit: []))
            let stored = try await store.factors(userID: ada.user.id)
            #expect(stored.map(\.id) == [second.id] && stored.first?.phone == "447700900123" && stored.first?.factorType == "phone")

            func challenge(_ hash: String) -> FactorChallengeRecord {
                FactorChallengeRecord(
                    id: UUID(), factorID: second.id, ip: "192.0.2.1", createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(300),
                    codeHash: hash)
            }
            let old = challenge("aa"), new = challenge("bb")
            try await store.createChallenge(old)
            try await store.createChallenge(new)
            let state = try await store.factorVerification(
                factorID: second.id, userID: ada.user.id, challengeID: new.id, sessionID: ada.session.id)
            #expect(state.challenge?.codeHash == "bb")
            let gone = try await store.factorVerification(
                factorID: second.id, userID: ada.user.id, challengeID: old.id, sessionID: ada.session.id)
            #expect(gone.challenge == nil)
            #expect(try await store.recordFactorVerification(try Self.acceptance(state, ada)))

            // A twin for the number, stored unverified beside it (as a racing enrolment could), may not verify.
            let twin = phoneFactor("twin")
            if let memory = store as? InMemoryStore {
                memory.add(twin)
            } else {
                let sql = try #require(store as? SQLAuthStore)
                try await sql.database.transaction { db in
                    _ = try await db.query(
                        "INSERT INTO mfa_factors (id, user_id, friendly_name, factor_type, status, sealed_secret, failed_attempts, "
                            + "created_at, updated_at, phone) VALUES (?, ?, 'twin', 'phone', 'unverified', '', 0, ?, ?, '447700900123')",
                        [SQLValue(twin.id), SQLValue(ada.user.id), SQLValue(Self.now), SQLValue(Self.now)])
                }
            }
            var verified = twin
            verified.status = .verified
            await #expect(throws: StoreError.self) {
                try await store.recordFactorVerification(FactorWrite(seen: twin, factor: verified, audit: []))
            }
            #expect(try await store.factors(userID: ada.user.id).filter { $0.status == .verified }.map(\.id) == [second.id])
        }
    }

    /// A challenge stored on a precondition: the factor's last challenge as read.
    @Test func aChallengeOnAStaleReadWritesNothing() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let factor = Self.factor(ada.user.id)
            #expect(try await store.createFactor(factor, limit: 10, audit: []))
            func challenge(at date: Date) -> FactorChallengeRecord {
                FactorChallengeRecord(
                    id: UUID(), factorID: factor.id, ip: nil, createdAt: date, expiresAt: date.addingTimeInterval(300), codeHash: "cc")
            }
            #expect(try await store.createChallenge(challenge(at: Self.now), ifLastChallengedAt: nil))
            #expect(try await !store.createChallenge(challenge(at: Self.now.addingTimeInterval(1)), ifLastChallengedAt: nil))
            let later = Self.now.addingTimeInterval(2)
            #expect(try await store.createChallenge(challenge(at: later), ifLastChallengedAt: Self.now))
            #expect(try await store.factors(userID: ada.user.id).first?.lastChallengedAt == later)
        }
    }

    /// An operator's reset: every factor, challenge, session and device key of the user goes in one
    /// write with its events and notice; another user's are untouched; none is a no-op.
    @Test func aResetRemovesEveryFactorAndSessionOfTheUserOnly() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let bob = try await Self.account(store)
            _ = try await Self.challenged(store, ada)
            #expect(try await store.createFactor(Self.factor(ada.user.id, name: "second"), limit: 10, audit: []))
            #expect(try await store.createFactor(Self.factor(bob.user.id), limit: 10, audit: []))
            let outbox = OutboxRecord(recipient: "ada@example.com", payload: "sealed", nextAttemptAt: Self.now, createdAt: Self.now)
            let removed = try await store.resetFactors(userID: ada.user.id) { deleted in
                deleted.map { _ in Self.event(.factorUnenrolled, ada.user.id) }
            } outbox: { _ in
                [outbox]
            }
            #expect(removed.count == 2)
            #expect(try await store.factors(userID: ada.user.id).isEmpty)
            #expect(try await store.factors(userID: bob.user.id).count == 1)
            #expect(try await Self.session(store, ada.session.id) == nil)
            #expect(try await Self.session(store, ada.other.id) == nil)
            #expect(try await Self.session(store, bob.session.id) != nil)
            #expect(try await Self.deviceKeys(store, ada.user.id).isEmpty)
            #expect(try await Self.deviceKeys(store, bob.user.id).count == 2)
            #expect(try await Self.auditActions(store, ada.user.id) == [.factorUnenrolled, .factorUnenrolled])
            #expect(
                try await store.resetFactors(userID: ada.user.id) { _ in
                    [Self.event(.logout, ada.user.id)]
                } outbox: { _ in
                    []
                }.isEmpty)
            #expect(try await Self.auditActions(store, ada.user.id).count == 2)
        }
    }

    /// Recovery codes: a set replaced whole, a code spent with the session it raises, both on
    /// their preconditions, and gone with the user's factors on a reset.
    @Test func recoveryCodesAreReplacedWholeAndSpentOnce() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            func code(_ hash: String) -> RecoveryCodeRecord {
                RecoveryCodeRecord(id: UUID(), userID: ada.user.id, codeHash: hash, createdAt: Self.now)
            }
            let first = [code("a1"), code("a2")]
            try await store.replaceRecoveryCodes(userID: ada.user.id, with: first, audit: [Self.event(.factorEnrolled, ada.user.id)])
            let second = [code("b1"), code("b2"), code("b3")]
            try await store.replaceRecoveryCodes(userID: ada.user.id, with: second, audit: [])
            let state = try await store.recoveryCodeState(userID: ada.user.id, sessionID: ada.session.id)
            #expect(Set(state.codes.map(\.codeHash)) == ["b1", "b2", "b3"] && state.session?.id == ada.session.id)
            var raised = try #require(state.session)
            raised.aal = "aal2"
            raised.refreshCounter += 2
            let spend = RecoveryCodeSpend(
                codeID: second[1].id, userID: ada.user.id, usedAt: Self.now, seenSession: try #require(state.session), session: raised,
                audit: [Self.event(.mfaVerified, ada.user.id)], outbox: [])
            #expect(try await store.spendRecoveryCode(spend))
            // Spent: a second use writes nothing; an old set's code is not there to spend.
            #expect(try await !store.spendRecoveryCode(spend))
            var stale = spend
            stale.codeID = first[0].id
            #expect(try await !store.spendRecoveryCode(stale))
            // A fresh code on a session that moved on: nothing written, the code still unspent.
            var moved = spend
            moved.codeID = second[2].id
            #expect(try await !store.spendRecoveryCode(moved))
            let after = try await store.recoveryCodeState(userID: ada.user.id, sessionID: ada.session.id)
            #expect(after.codes.filter { $0.usedAt != nil }.map(\.id) == [second[1].id])
            #expect(after.session?.aal == "aal2" && after.session?.refreshCounter == 2)
            let actions = try await Self.auditActions(store, ada.user.id)
            #expect(actions.filter { $0 == .mfaVerified }.count == 1 && actions.filter { $0 == .factorEnrolled }.count == 1)
            // A reset takes the codes with the factors.
            #expect(try await store.createFactor(Self.factor(ada.user.id), limit: 10, audit: []))
            _ = try await store.resetFactors(userID: ada.user.id) { _ in
                []
            } outbox: { _ in
                []
            }
            #expect(try await store.recoveryCodeState(userID: ada.user.id, sessionID: ada.session.id).codes.isEmpty)
        }
    }
}
