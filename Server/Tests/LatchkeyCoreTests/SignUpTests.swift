import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// `POST /signup` against the in-memory store, a manual clock and seeded randomness: a new
/// address or number, autoconfirm, repeats of confirmed and unconfirmed addresses (answered
/// alike, the password hashed either way), password rules, sign-ups turned off, and sign-ups
/// racing for one address — without HTTP or a database.
@Suite struct SignUpTests {
    static let client = ClientInfo(ip: "192.0.2.8", userAgent: "test")
    static let decoder = JSONDecoder()
    static let password = "correct horse battery staple"

    /// ``PasswordSignInTests/CountingHasher`` that also counts hashes.
    final class HashCounter: PasswordHasher {
        let base = PasswordSignInTests.CountingHasher()
        let hashes = Mutex(0)
        func hash(_ password: String) async throws -> String {
            hashes.withLock { $0 += 1 }
            return try await base.hash(password)
        }
        func verify(_ password: String, against hash: String) async throws -> Bool { try await base.verify(password, against: hash) }
        func needsRehash(_ hash: String) -> Bool { false }
        func decoyHash() async throws -> String { "v1$decoy" }
    }

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let hasher = HashCounter()
        let sms = OneTimeCodesTests.RecordingSMS()
        let signUp: SignUp

        init(configure: (inout AuthConfiguration) -> Void = { _ in }) {
            var configuration = AuthConfiguration(siteURL: "http://localhost:3000")
            configuration.rateLimits = .unlimited
            configure(&configuration)
            let parts = TestCodeParts(memory: memory, time: time, sms: sms, configuration: configuration, seed: 89)
            signUp = SignUp(
                store: memory,
                passwords: Passwords(
                    policy: PasswordPolicy(settings: configuration.password, blocklist: ["password1234"]), hasher: hasher,
                    decoyHash: "v1$decoy"),
                codes: parts.codes, records: parts.records, limiter: parts.limiter, settings: SignUp.Settings(configuration))
        }

        func signUp(_ json: String) async throws -> SignUpResult {
            try await signUp.signUp(
                SignUpTests.decoder.decode(SignUpRequest.self, from: Data(json.utf8)), redirectTo: nil, client: SignUpTests.client)
        }

        func user(_ result: SignUpResult) throws -> User {
            guard case .user(let user) = result else { throw AuthError.userAlreadyExists }
            return user
        }

        func messages(to address: String) -> [String] {
            memory.outbox.filter { $0.recipient == address }.compactMap { $0.message?.subject }
        }
    }

    static let ada = #"{"email":"Ada@Example.com","password":"correct horse battery staple","data":{"name":"Ada"}}"#

    @Test func aNewAddressGetsAnUnconfirmedUserAndACode() async throws {
        let f = Fixture()
        let user = try f.user(try await f.signUp(Self.ada))
        #expect(user.email == "ada@example.com" && user.emailConfirmedAt == nil && user.userMetadata["name"] == "Ada")
        #expect(user.identities?.count == 1)
        let stored = try #require(try await f.memory.user(email: "ada@example.com"))
        #expect(stored.passwordHash == "v1$" + Self.password && stored.confirmationSentAt == f.time.now())
        #expect(f.messages(to: "ada@example.com") == ["confirmation"])
        #expect(f.memory.tokens(userID: stored.id).map(\.kind) == [.confirmation])
        #expect(f.memory.sessionCount == 0)
    }

    @Test func underAutoconfirmTheSignUpSignsIn() async throws {
        let f = Fixture { $0.mailerAutoconfirm = true }
        guard case .session(let session) = try await f.signUp(Self.ada) else {
            Issue.record("expected a session")
            return
        }
        #expect(session.user.emailConfirmedAt == f.time.now() && f.memory.sessionCount == 1)
        #expect(f.memory.outbox.isEmpty)
        #expect(try await errorOf { try await f.signUp(Self.ada) } == AuthError.userAlreadyExists)
    }

    /// A confirmed address signed up again answers like a new sign-up (a fresh id, no
    /// identities), emails the owner, and hashes the password all the same.
    @Test func aConfirmedAddressAnswersAlikeAndTheOwnerIsTold() async throws {
        let f = Fixture()
        let first = try f.user(try await f.signUp(Self.ada))
        f.memory.change(first.id) { $0.emailConfirmedAt = f.time.now() }
        let hashes = f.hasher.hashes.withLock { $0 }
        let again = try f.user(try await f.signUp(Self.ada))
        #expect(f.hasher.hashes.withLock { $0 } == hashes + 1)
        #expect(again.id != first.id && again.identities?.isEmpty == true && again.email == "ada@example.com")
        #expect(f.messages(to: "ada@example.com") == ["confirmation", "existingAccount"])
        #expect(try await f.memory.user(id: first.id)?.passwordHash == "v1$" + Self.password)
    }

    /// An unconfirmed address signed up again gets a new confirmation code; its password stays.
    @Test func anUnconfirmedAddressGetsANewCodeAndKeepsItsPassword() async throws {
        let f = Fixture { $0.otp.sendFrequency = 0 }
        let first = try f.user(try await f.signUp(Self.ada))
        let again = try f.user(try await f.signUp(#"{"email":"ada@example.com","password":"another long passphrase"}"#))
        #expect(again.id == first.id)
        #expect(f.messages(to: "ada@example.com") == ["confirmation", "confirmation"])
        #expect(try await f.memory.user(id: first.id)?.passwordHash == "v1$" + Self.password)
        #expect(f.memory.tokens(userID: first.id).count == 1)
    }

    @Test(arguments: [
        (#"{"email":"ada@example.com"}"#, ErrorCode.validationFailed),
        (#"{"email":"ada@example.com","password":"short"}"#, .weakPassword),
        (#"{"email":"ada@example.com","password":"password1234"}"#, .weakPassword),
        (#"{"email":"not an address","password":"correct horse battery staple"}"#, .emailAddressInvalid),
        (#"{"phone":"0123","password":"correct horse battery staple"}"#, .validationFailed),
        (#"{"phone":"15551234567","password":"correct horse battery staple","channel":"pigeon"}"#, .validationFailed),
    ])
    func badRequestsStoreNothing(_ json: String, _ code: ErrorCode) async throws {
        let f = Fixture()
        #expect(try await errorOf { try await f.signUp(json) }?.code == code, "\(json)")
        #expect(try await f.memory.user(email: "ada@example.com") == nil && f.memory.outbox.isEmpty)
    }

    @Test func signUpsTurnedOffAreRefused() async throws {
        let f = Fixture { $0.disableSignup = true }
        #expect(try await errorOf { try await f.signUp(Self.ada) } == AuthError.signupDisabled)
        let phones = Fixture { $0.sms.enabled = false }
        let phone = #"{"phone":"15551234567","password":"correct horse battery staple"}"#
        #expect(try await errorOf { try await phones.signUp(phone) } == AuthError.phoneDisabled)
    }

    /// A number gets an SMS code; under SMS autoconfirm it signs in; a confirmed number signed
    /// up again answers like a new one.
    @Test func aNumberGetsAnSMSCodeOrASession() async throws {
        let f = Fixture()
        let phone = #"{"phone":"+1 555 123 4567","password":"correct horse battery staple"}"#
        let user = try f.user(try await f.signUp(phone))
        #expect(user.phone == "15551234567" && f.sms.sent.withLock { $0.map(\.phone) } == ["15551234567"])
        f.memory.change(user.id) { $0.phoneConfirmedAt = f.time.now() }
        let again = try f.user(try await f.signUp(phone))
        #expect(again.id != user.id && f.sms.sent.withLock { $0.count } == 1)

        let auto = Fixture { $0.sms.autoconfirm = true }
        guard case .session(let session) = try await auto.signUp(phone) else {
            Issue.record("expected a session")
            return
        }
        #expect(session.user.phoneConfirmedAt == auto.time.now())
    }

    /// Sign-ups racing for one address: one user is stored, and every request is answered.
    @Test func racingSignUpsStoreOneUser() async throws {
        let f = Fixture { $0.otp.sendFrequency = 0 }
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { (try? await f.signUp(Self.ada)) != nil } }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(answered == 6)
        let stored = try await f.memory.listedUsers(email: "ada@example.com")
        #expect(stored == 1)
    }
}

extension InMemoryStore {
    /// How many stored users have this address (tests of races).
    func listedUsers(email: String) async throws -> Int { state.withLock { $0.users.values.filter { $0.email == email }.count } }
}
