import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The PIN-vault use case against the in-memory stores, a manual clock and seeded randomness:
/// every rule of `/vaults` without HTTP or a database.
@Suite struct KeyVaultsTests {
    struct Fixture {
        let vaults: KeyVaults
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let principal: Principal

        init(verifiedFactor: Bool = false, aal: String = "aal1", unlockLimit: RateLimit = RateLimit(count: 1000, period: 300)) {
            principal = TestPrincipals.signedIn(aal: aal, now: time.now())
            vaults = KeyVaults(
                store: store, serverSecret: Array(repeating: 7, count: 32),
                gate: SecondFactorGate(factors: TestPrincipals.Factors(verified: verifiedFactor)),
                limiter: RateLimiter(store: store, time: time), unlockLimit: unlockLimit, time: time,
                random: SeededRandomSource(seed: 42))
        }
    }

    static let pin = Base64URL.encode([UInt8](repeating: 1, count: 32))
    static let wrong = Base64URL.encode([UInt8](repeating: 2, count: 32))
    static let client = ClientInfo(ip: "192.0.2.1")

    func unlock(_ f: Fixture, _ id: UUID, _ verifier: String) async throws -> KeyVault {
        try await f.vaults.unlock(id: id.uuidString, UnlockVaultRequest(verifier: verifier), principal: f.principal, client: Self.client)
    }

    func refusal(_ f: Fixture, _ id: UUID, _ verifier: String) async -> AuthError? {
        do {
            _ = try await unlock(f, id, verifier)
            return nil
        } catch {
            return error as? AuthError
        }
    }

    @Test func theRightPINReleasesTheShareAndResetsTheCount() async throws {
        let f = Fixture()
        let created = try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal)
        let id = created.id
        #expect(created.share?.isEmpty == false)
        // Seeded randomness: the same id on every run.
        #expect(id == SeededRandomSource(seed: 42).uuid())
        #expect(await refusal(f, id, Self.wrong)?.attemptsRemaining == 9)
        #expect(await refusal(f, id, Self.wrong)?.attemptsRemaining == 8)
        let opened = try await unlock(f, id, Self.pin)
        #expect(opened.share == created.share)
        #expect(opened.failedAttempts == 0)
        #expect(await refusal(f, id, Self.wrong)?.attemptsRemaining == 9)
    }

    @Test func theTenthWrongPINInARowDestroysTheShareForGood() async throws {
        let f = Fixture()
        let id = try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal).id
        for remaining in stride(from: 9, through: 1, by: -1) {
            let error = await refusal(f, id, Self.wrong)
            #expect(error?.code == .invalidPIN && error?.attemptsRemaining == remaining)
        }
        #expect(await refusal(f, id, Self.wrong)?.code == .vaultLocked)
        // The right PIN no longer helps, and the stored share is gone.
        #expect(await refusal(f, id, Self.pin)?.code == .vaultLocked)
        let stored = try await f.store.vault(id: id, userID: f.principal.user.id)
        #expect(stored?.sealedShare == nil && stored?.failedAttempts == 10)
        #expect(try await f.vaults.list(principal: f.principal).vaults.first?.locked == true)
    }

    /// Concurrent wrong guesses each count: an attempt that loses the race reads again.
    @Test func concurrentGuessesAreEachCounted() async throws {
        let f = Fixture()
        let id = try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal).id
        let codes = await withTaskGroup(of: ErrorCode?.self) { group in
            for _ in 0..<12 { group.addTask { await refusal(f, id, Self.wrong)?.code } }
            return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == ErrorCode.invalidPIN }.count == 9)
        #expect(codes.filter { $0 == ErrorCode.vaultLocked }.count == 3)
        #expect(try await f.store.vault(id: id, userID: f.principal.user.id)?.sealedShare == nil)
    }

    @Test func capsGatesAndOwnership() async throws {
        let f = Fixture()
        for _ in 0..<KeyVaults.maxVaults { _ = try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal) }
        await #expect(throws: AuthError.unprocessable("A user can keep at most 20 PIN vaults")) {
            try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal)
        }
        await #expect(throws: AuthError.validation("verifier must be 32 bytes, base64url")) {
            try await f.vaults.create(CreateVaultRequest(verifier: "short"), principal: f.principal)
        }
        // Another user's vault is not found, and neither is a malformed id.
        let other = Fixture()
        let id = try #require(try await f.vaults.list(principal: f.principal).vaults.first?.id)
        #expect(await refusal(other, id, Self.pin)?.code == .notFound)
        await #expect(throws: KeyVaults.notFound) { try await f.vaults.delete(id: "nope", principal: f.principal) }
        // A user with a verified factor needs an aal2 session.
        let guarded = Fixture(verifiedFactor: true)
        await #expect(throws: AuthError.self) {
            try await guarded.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: guarded.principal)
        }
        let raised = Fixture(verifiedFactor: true, aal: "aal2")
        _ = try await raised.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: raised.principal)
    }

    @Test func unlockAttemptsAreLimitedPerClient() async throws {
        let f = Fixture(unlockLimit: RateLimit(count: 2, period: 60))
        let id = try await f.vaults.create(CreateVaultRequest(verifier: Self.pin), principal: f.principal).id
        _ = try await unlock(f, id, Self.pin)
        _ = try await unlock(f, id, Self.pin)
        #expect(await refusal(f, id, Self.pin)?.code == .overRequestRateLimit)
        f.time.advance(by: 61)
        _ = try await unlock(f, id, Self.pin)
    }
}
