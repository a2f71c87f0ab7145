import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import LatchkeyServer
import LatchkeyStore
import Logging
import NIOPosix
import Synchronization
import Testing

/// Answers that do not tell known addresses from unknown ones, and the limits on what an
/// anonymous client can make the server store and send (issue #14, items 8 and 9).
@Suite struct AbuseLimitTests {
    @Test func verifyAnswersAnUnknownAddressAsAKnownOneWithoutACode() async throws {
        try await TestServer().run { client, app async throws in
            _ = try await client.signUpConfirmed("known@example.com", app: app)
            func verify(_ email: String) async throws -> TestResponse {
                try await client.send(.post, "/verify", json: #"{"type":"email","email":"\#(email)","token":"123456"}"#)
            }
            let known = try await verify("known@example.com")
            let unknown = try await verify("nobody@example.com")
            #expect(known.status == .forbidden && unknown.status == .forbidden)
            #expect(known.text == unknown.text)
            #expect(known.errorCode == "otp_expired")
        }
    }

    /// A password hasher that counts its work.
    final class CountingHasher: PasswordHasher {
        let base: ScryptPasswordHasher
        let hashes = Mutex(0)
        init(base: ScryptPasswordHasher) { self.base = base }
        func hash(_ password: String) async throws -> String {
            hashes.withLock { $0 += 1 }
            return try await base.hash(password)
        }
        func verify(_ password: String, against hash: String) async throws -> Bool { try await base.verify(password, against: hash) }
        func needsRehash(_ hash: String) -> Bool { base.needsRehash(hash) }
    }

    @Test func signUpHashesForAKnownAddressAsForANewOne() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-enum-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = try await SQLiteDatabase.open(path: directory + "/latchkey.sqlite", readers: 1)
        let store = SQLAuthStore(database: database)
        try await store.migrate()
        let hasher = CountingHasher(base: ScryptPasswordHasher(logN: 10, pool: pool))
        let issuer = try await TokenIssuer.make(from: TokenKeyMaterial(hmacSecret: String(repeating: "k", count: 40)))
        var configuration = AuthConfiguration(rateLimits: .unlimited)
        configuration.otp.sendFrequency = 0
        let service = try await SharedParts.make(
            configuration: configuration, store: store, hasher: hasher, issuer: issuer,
            serverSecret: Array(repeating: 7, count: 32), renderer: MessageTemplates.defaults)
        let client = ClientInfo(ip: "192.0.2.1")
        let signUps = SignUp(
            store: store, passwords: service.passwords, codes: service.codes, records: service.records, limiter: service.limiter,
            settings: SignUp.Settings(configuration))
        func signUp(_ email: String) async throws {
            let body = #"{"email":"\#(email)","password":"correct horse battery staple"}"#
            _ = try await signUps.signUp(decoder.decode(SignUpRequest.self, from: Data(body.utf8)), redirectTo: nil, client: client)
        }
        func hashed(during work: () async throws -> Void) async throws -> Int {
            let before = hasher.hashes.withLock { $0 }
            try await work()
            return hasher.hashes.withLock { $0 } - before
        }
        // The decoy hash the service made at start-up is not counted from here on.
        let outcome: Result<(Int, Int), any Error>
        do {
            let new = try await hashed { try await signUp("new@example.com") }
            let known = try await hashed { try await signUp("new@example.com") }
            outcome = .success((new, known))
        } catch {
            outcome = .failure(error)
        }
        try await database.close()
        try await pool.shutdownGracefully()
        try? FileManager.default.removeItem(atPath: directory)
        let (new, known) = try outcome.get()
        #expect(new == 1 && known == 1)
    }

    @Test func userMetadataIsCappedWhereverItIsSet() async throws {
        let big = String(repeating: "x", count: 16_400)
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("meta@example.com", app: app)
            let refusals = [
                try await client.send(
                    .post, "/signup", json: #"{"email":"big@example.com","password":"correct horse battery staple","data":{"a":"\#(big)"}}"#
                ),
                try await client.send(.post, "/otp", json: #"{"email":"big2@example.com","data":{"a":"\#(big)"}}"#),
                try await client.send(.put, "/user", json: #"{"data":{"a":"\#(big)"}}"#, bearer: session.accessToken),
                try await client.send(
                    .post, "/admin/users", json: #"{"email":"big3@example.com","user_metadata":{"a":"\#(big)"}}"#,
                    bearer: try await AdminUserTests.serviceRole(app)),
            ]
            for answer in refusals {
                #expect(answer.status == .unprocessableContent && answer.errorCode == "validation_failed", "\(answer.text)")
            }
            // Nothing was stored: no user for the refused addresses, the metadata unchanged.
            for email in ["big@example.com", "big2@example.com", "big3@example.com"] {
                #expect(try await app.store.user(email: email) == nil)
            }
            let user = try await client.send(.get, "/user", bearer: session.accessToken).decode(User.self)
            #expect(user.userMetadata["a"] == nil)
            // Two halves that each fit but together do not: the merged metadata is what counts.
            let half = String(repeating: "y", count: 9000)
            #expect(try await client.send(.put, "/user", json: #"{"data":{"a":"\#(half)"}}"#, bearer: session.accessToken).status == .ok)
            let second = try await client.send(.put, "/user", json: #"{"data":{"b":"\#(half)"}}"#, bearer: session.accessToken)
            #expect(second.errorCode == "validation_failed")
            // Just under the limit is fine, and `null` still deletes.
            #expect(try await client.send(.put, "/user", json: #"{"data":{"a":null}}"#, bearer: session.accessToken).status == .ok)
        }
        var roomy = TestServer()
        roomy.configuration.auth.userMetadataMaxBytes = 64 * 1024
        try await roomy.run { client, _ async throws in
            let answer = try await client.send(
                .post, "/signup", json: #"{"email":"big@example.com","password":"correct horse battery staple","data":{"a":"\#(big)"}}"#)
            #expect(answer.status == .ok)
        }
    }

    @Test func oneClientCannotSpendTheEmailBudgetOfEveryone() async throws {
        let defaults = RateLimitSettings()
        // Seventeen addresses, not three, to spend the hourly budget at the defaults.
        #expect(defaults.otpPerIPHourly.count * 16 < defaults.emailSent.count)
        let loaded = try ServerConfiguration.load(environment: ["LATCHKEY_RATE_LIMIT_OTP_PER_HOUR": "7"])
        #expect(loaded.auth.rateLimits.otpPerIPHourly == RateLimit(count: 7, period: 3600))
        #expect(try ServerConfiguration.load(environment: [:]).auth.userMetadataMaxBytes == 16384)
        // An operator who raised the 5-minute limit keeps what that allows in an hour; under GoTrue's
        // profile there is no hourly limit, as on GoTrue.
        let raised = try ServerConfiguration.load(environment: ["LATCHKEY_RATE_LIMIT_OTP": "1000"]).auth.rateLimits
        #expect(raised.otpPerIPHourly.count == 12_000)
        let goTrue = try ServerConfiguration.load(environment: ["GOTRUE_RATE_LIMIT_OTP": "1000", "GOTRUE_RATE_LIMIT_HEADER": "X-Real-IP"])
        #expect(goTrue.auth.rateLimits.otpPerIP.count == 1000 && goTrue.auth.rateLimits.otpPerIPHourly.isOff)

        var server = TestServer()
        server.configuration.auth.rateLimits.otpPerIPHourly = .init(count: 3, period: 3600)
        // A clock that stands still: no window boundary falls between the requests.
        try await server.run(time: ManualTimeSource(Date())) { client, _ async throws in
            for index in 0..<3 {
                #expect(try await client.send(.post, "/otp", json: #"{"email":"spend\#(index)@example.com"}"#).status == .ok)
            }
            let refused = try await client.send(.post, "/recover", json: #"{"email":"spend9@example.com"}"#)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "over_request_rate_limit")
        }
    }
}
