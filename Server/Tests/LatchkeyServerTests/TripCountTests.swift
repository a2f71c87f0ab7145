import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import LatchkeyServer
import LatchkeyStore
import Logging
import NIOPosix
import Synchronization
import Testing

/// The hot requests of the code sign-in and of a refresh make one write transaction each, with
/// their rate-limit counters inside it, and no read after it for the session answer (#16 items 3
/// and 5), on SQLite and on PostgreSQL alike (where they run at `READ COMMITTED` with row locks,
/// the counters last in the same commit).
@Suite struct TripCountTests {
    /// A database that counts the transactions and reads its callers start.
    final class CountingDatabase: SQLDatabase {
        let base: any SQLDatabase
        let writes = Atomic<Int>(0)
        let reads = Atomic<Int>(0)

        init(base: any SQLDatabase) { self.base = base }

        func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
            reads.add(1, ordering: .relaxed)
            return try await base.read(body)
        }
        func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
            writes.add(1, ordering: .relaxed)
            return try await base.transaction(body)
        }
        func exclusiveTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
            writes.add(1, ordering: .relaxed)
            return try await base.exclusiveTransaction(body)
        }
        func claimTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
            writes.add(1, ordering: .relaxed)
            return try await base.claimTransaction(body)
        }
        func lockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
            writes.add(1, ordering: .relaxed)
            return try await base.lockingTransaction(body)
        }
        func lockClause(_ lock: RowLock) -> String { base.lockClause(lock) }
        var claimClause: String { base.claimClause }
        var limitCounting: LimitCounting { base.limitCounting }
        func isUniqueViolation(_ error: any Error) -> Bool { base.isUniqueViolation(error) }
        func ping() async -> Bool { await base.ping() }
        func close() async throws { try await base.close() }

        /// The writes and reads `work` started.
        func trips(_ work: () async throws -> Void) async throws -> (writes: Int, reads: Int) {
            let (w, r) = (writes.load(ordering: .relaxed), reads.load(ordering: .relaxed))
            try await work()
            return (writes.load(ordering: .relaxed) - w, reads.load(ordering: .relaxed) - r)
        }
    }

    /// A service over a real database (SQLite on disk, or the test PostgreSQL) counted by a
    /// ``CountingDatabase``, on a clock that stands still (no window ends between a request and
    /// the check of its counters).
    struct Fixture {
        let service: SharedParts
        let store: SQLAuthStore
        let database: CountingDatabase
        let time: ManualTimeSource
        let pool: NIOThreadPool

        /// Sending codes over the fixture's store, as the composition root builds it.
        var oneTimeCodes: OneTimeCodes {
            OneTimeCodes(
                store: store, codes: service.codes, limiter: service.limiter, settings: OneTimeCodes.Settings(service.configuration))
        }

        /// `/verify` over the fixture's store, as the composition root builds it.
        var verification: Verification {
            Verification(
                store: store, limiter: service.limiter, settings: Verification.Settings(service.configuration), records: service.records,
                redirects: service.redirects)
        }

        init(configure: (inout AuthConfiguration) -> Void = { _ in }) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-trips-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let base: any SQLDatabase
            var logger = Logger(label: "latchkey-test")
            logger.logLevel = .error
            if let url = TestServer.postgresURL {
                base = try await PostgresDatabase.open(
                    .init(url: url, schema: "t_trips_\(UInt32.random(in: 0...UInt32.max))"), logger: logger)
            } else {
                base = try await SQLiteDatabase.open(path: directory + "/latchkey.sqlite", readers: 1)
            }
            database = CountingDatabase(base: base)
            let secret = [UInt8](repeating: 9, count: 32)
            store = SQLAuthStore(database: database, devMailboxSealer: OutboxSealer(serverSecret: secret))
            try await store.migrate()
            pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            // Real limits, with the address's email budget counted too (no autoconfirm).
            var configuration = AuthConfiguration()
            configuration.otp.sendFrequency = 0
            configure(&configuration)
            time = ManualTimeSource(Date())
            service = try await SharedParts.make(
                configuration: configuration, store: store, hasher: ScryptPasswordHasher(logN: 10, pool: pool),
                issuer: try await TokenIssuer.make(from: TokenKeyMaterial(hmacSecret: String(repeating: "k", count: 40))),
                serverSecret: secret, time: time, renderer: MessageTemplates.defaults)
        }

        /// The count of `key` in the window of `limit` now.
        func count(_ key: String, _ limit: RateLimit) async throws -> Int {
            let period = Double(limit.period)
            let start = (time.now().timeIntervalSince1970 / period).rounded(.down) * period
            return try await store.rateLimitCount(key: key, windowStart: Date(timeIntervalSince1970: start))
        }

        func close() async throws {
            try await database.close()
            try await pool.shutdownGracefully()
        }
    }

    @Test func theCodeSignInAndARefreshWriteOnceEachAndReadNothingAfter() async throws {
        let fixture = try await Fixture()
        let (service, store, database) = (fixture.service, fixture.store, fixture.database)
        let configuration = service.configuration
        let client = ClientInfo(ip: "192.0.2.7")
        let verification = fixture.verification
        let refresher = SessionRefresh(
            store: store, limiter: service.limiter, settings: SessionRefresh.Settings(configuration), answers: service.answers,
            time: service.time, logger: Logger(label: "trips"))

        let otp = try await database.trips {
            _ = try await fixture.oneTimeCodes.sendOTP(
                decoder.decode(OTPRequest.self, from: Data(#"{"email":"trips@example.com"}"#.utf8)), redirectTo: nil, client: client)
        }
        // One read: whether the address has a user.
        #expect(otp.writes == 1 && otp.reads == 1)

        let text = try #require(try await store.mailbox(to: "trips@example.com", limit: 1).first?.message.text)
        let code = String(try #require(text.firstMatch(of: /is (\d{6,10})\./)).1)
        var session: Session?
        let verify = try await database.trips {
            let body = #"{"type":"email","email":"trips@example.com","token":"\#(code)"}"#
            guard
                case .session(let signedIn, _) = try await verification.verify(
                    decoder.decode(VerifyRequest.self, from: Data(body.utf8)), client: client)
            else { throw AuthError.otpInvalid }
            session = signedIn
        }
        #expect(verify.writes == 1 && verify.reads == 0)
        let signedIn = try #require(session)
        #expect(signedIn.user.identities?.count == 1)

        let refresh = try await database.trips {
            let body = #"{"refresh_token":"\#(signedIn.refreshToken)"}"#
            let next = try await refresher.refresh(decoder.decode(RefreshTokenGrantRequest.self, from: Data(body.utf8)), client: client)
            #expect(next.user.id == signedIn.user.id && next.user.identities?.count == 1)
        }
        // One write: the read, the rotation, the counter and the answer's reads in one transaction.
        #expect(refresh.writes == 1 && refresh.reads == 0)

        // Every counter moved once.
        let limits = configuration.rateLimits
        #expect(try await fixture.count("ip:otp:192.0.2.7", limits.otpPerIP) == 1)
        #expect(try await fixture.count("email:addr:trips@example.com", limits.emailPerAddress) == 1)
        #expect(try await fixture.count("ip:verify:192.0.2.7", limits.verifyPerIP) == 1)
        #expect(try await fixture.count("ip:token:192.0.2.7", limits.tokenPerIP) == 1)
        try await fixture.close()
    }

    /// A request that writes nothing (refused before any store call, or answered from a read)
    /// still counts when it ends, and past the limit the limit's refusal replaces its answer.
    @Test func requestsThatWriteNothingStillCountAndThenAreRefused() async throws {
        let fixture = try await Fixture { configuration in
            configuration.rateLimits.verifyPerIP = RateLimit(count: 2, period: 300)
            configuration.rateLimits.otpPerIP = RateLimit(count: 2, period: 300)
        }
        let service = fixture.service
        let verification = fixture.verification
        let client = ClientInfo(ip: "192.0.2.8")
        func code(_ work: () async throws -> Void) async -> ErrorCode? {
            do {
                try await work()
                return nil
            } catch let error as AuthError {
                return error.code
            } catch {
                return nil
            }
        }
        // A code too long to match is refused before any store call.
        let longCode = #"{"type":"email","email":"ada@example.com","token":"12345678901234567"}"#
        var verifies: [ErrorCode?] = []
        for _ in 0..<3 {
            verifies.append(
                await code {
                    _ = try await verification.verify(decoder.decode(VerifyRequest.self, from: Data(longCode.utf8)), client: client)
                })
        }
        #expect(verifies == [AuthError.otpInvalid.code, AuthError.otpInvalid.code, .overRequestRateLimit])
        // `intent: signin` for an unknown address answers from a read.
        let signIn = #"{"email":"nobody@example.com","intent":"signin"}"#
        var otps: [ErrorCode?] = []
        for _ in 0..<3 {
            otps.append(
                await code {
                    _ = try await fixture.oneTimeCodes.sendOTP(
                        decoder.decode(OTPRequest.self, from: Data(signIn.utf8)), redirectTo: nil, client: client)
                })
        }
        #expect(otps == [.userNotFound, .userNotFound, .overRequestRateLimit])
        #expect(try await fixture.count("ip:verify:192.0.2.8", service.configuration.rateLimits.verifyPerIP) == 3)
        #expect(try await fixture.count("ip:otp:192.0.2.8", service.configuration.rateLimits.otpPerIP) == 3)
        #expect(try await fixture.store.user(email: "nobody@example.com") == nil)
        try await fixture.close()
    }
}
