import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

extension FactorStoreContractTests {
    /// A WebAuthn factor on three stores: its key is written by the verification that registers it
    /// and read back whole, its counter (the last used step) is the precondition of the next
    /// verification, and a key is one factor's, across users.
    @Test func aWebAuthnFactorKeepsItsKeyItsCounterAndItsKeyIsOneFactors() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let bob = try await Self.account(store)
            let key = WebAuthnFactorCredential(
                credentialID: Array(repeating: 0xA1, count: 16) + [UInt8.random(in: 0...255)], publicKey: Array(repeating: 3, count: 77),
                aaguid: Array(repeating: 0, count: 16), transports: ["usb", "nfc"], attestationFormat: "none")
            func webAuthnFactor(_ userID: UUID) -> FactorRecord {
                FactorRecord(
                    id: UUID(), userID: userID, friendlyName: "key", factorType: "webauthn", sealedSecret: "", createdAt: Self.now,
                    updatedAt: Self.now)
            }
            func challenged(_ factor: FactorRecord, _ account: Account) async throws -> FactorVerificationState {
                let challenge = FactorChallengeRecord(
                    id: UUID(), factorID: factor.id, ip: "192.0.2.1", createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(300),
                    codeHash: "cc")
                try await store.createChallenge(challenge)
                return try await store.factorVerification(
                    factorID: factor.id, userID: account.user.id, challengeID: challenge.id, sessionID: account.session.id)
            }
            let factor = webAuthnFactor(ada.user.id)
            #expect(try await store.createFactor(factor, limit: 10, audit: []))
            let state = try await challenged(factor, ada)
            #expect(state.factor?.webAuthn == nil)
            var registering = try Self.acceptance(state, ada, step: 0)
            registering.factor.webAuthn = key
            #expect(try await store.recordFactorVerification(registering))
            let stored = try #require(try await store.factors(userID: ada.user.id).first)
            #expect(stored.webAuthn == key && stored.lastUsedStep == 0 && stored.status == .verified)

            // An assertion decided on counter 0 lands once; a second decided on the same read writes nothing.
            let next = try await challenged(stored, ada)
            var counted = try #require(next.factor)
            counted.lastUsedStep = 5
            #expect(try await store.recordFactorVerification(FactorWrite(seen: try #require(next.factor), factor: counted, audit: [])))
            var stale = try #require(next.factor)
            stale.failedAttempts = 1
            #expect(
                try await store.recordFactorVerification(FactorWrite(seen: try #require(next.factor), factor: stale, audit: [])) == false)
            #expect(try await store.factors(userID: ada.user.id).first?.lastUsedStep == 5)

            // Bob's factor may not register Ada's key.
            let bobs = webAuthnFactor(bob.user.id)
            #expect(try await store.createFactor(bobs, limit: 10, audit: []))
            var stolen = try Self.acceptance(try await challenged(bobs, bob), bob, step: 0)
            stolen.factor.webAuthn = key
            await #expect(throws: StoreError.self) { try await store.recordFactorVerification(stolen) }
            #expect(try await store.factors(userID: bob.user.id).first?.status == .unverified)
        }
    }

    /// The first factor's verification stores its recovery codes in the same write, in place of
    /// the user's; a verification whose write loses stores none.
    @Test func anAcceptanceWithRecoveryCodesReplacesTheUsersSet() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            func set(_ tag: String) -> [RecoveryCodeRecord] {
                (0..<3).map { RecoveryCodeRecord(id: UUID(), userID: ada.user.id, codeHash: "\(tag)\($0)", createdAt: Self.now) }
            }
            try await store.replaceRecoveryCodes(userID: ada.user.id, with: set("old"), audit: [])
            let state = try await Self.challenged(store, ada)
            var write = try Self.acceptance(state, ada)
            write.acceptance?.recoveryCodes = set("new")
            // On a stale read of the session nothing is written, the codes included.
            var stale = write
            stale.acceptance?.seenSession.refreshCounter += 1
            #expect(try await store.recordFactorVerification(stale) == false)
            #expect(
                try await store.recoveryCodeState(userID: ada.user.id, sessionID: ada.session.id).codes.map(\.codeHash).sorted() == [
                    "old0", "old1", "old2",
                ])
            #expect(try await store.recordFactorVerification(write))
            let codes = try await store.recoveryCodeState(userID: ada.user.id, sessionID: ada.session.id).codes
            #expect(codes.map(\.codeHash).sorted() == ["new0", "new1", "new2"])
        }
    }

    /// GoTrue's factor expiry: an enrolment first removes the user's unverified factors enrolled
    /// before it and never challenged; a challenged one, a verified one and another user's stay.
    @Test func anEnrolmentRemovesTheUsersStaleUnchallengedFactors() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.account(store)
            let bob = try await Self.account(store)
            let old = Self.now.addingTimeInterval(-600)
            let stale = Self.factor(ada.user.id, name: "stale", at: old)
            let challenged = Self.factor(ada.user.id, name: "challenged", at: old)
            let bobs = Self.factor(bob.user.id, name: "bob's", at: old)
            for factor in [stale, challenged, bobs] { #expect(try await store.createFactor(factor, limit: 10, audit: [])) }
            try await store.createChallenge(
                FactorChallengeRecord(
                    id: UUID(), factorID: challenged.id, ip: nil, createdAt: old, expiresAt: Self.now.addingTimeInterval(300)))
            let fresh = Self.factor(ada.user.id, name: "fresh")
            #expect(try await store.createFactor(fresh, limit: 2, expiringBefore: Self.now.addingTimeInterval(-300), audit: []))
            #expect(Set(try await store.factors(userID: ada.user.id).map(\.id)) == [challenged.id, fresh.id])
            #expect(try await store.factors(userID: bob.user.id).map(\.id) == [bobs.id])
        }
    }
}
