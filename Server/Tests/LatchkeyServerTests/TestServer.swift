import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Logging
import NIOCore
import Testing

/// A server on a temporary data folder, built by the same composition root as `latchkey serve`.
struct TestServer {
    let directory: String
    var configuration: ServerConfiguration

    init(directory: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }) {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-\(UUID().uuidString)").path
        self.directory = dir
        var auth = AuthConfiguration(rateLimits: .unlimited)
        auth.password.scryptLogN = 10
        auth.otp.sendFrequency = 0
        var configuration = ServerConfiguration(port: 0, dataDirectory: dir, hashingThreads: 2, auth: auth)
        if let url = Self.postgresURL {
            // Every data folder gets a schema of its own on the throwaway test cluster (a server
            // restarted on the same folder finds its data again).
            let digest = dir.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            let schema = "t_" + String(digest, radix: 16)
            configuration.postgres = PostgresDatabase.Options(url: url, schema: schema, poolSize: 6)
            // A fresh pool's first connection on a loaded two-core CI machine can take longer
            // than an instance's 2 s health answer (CI saw `/health` 503 "timed out after 2.0
            // seconds" that way); these tests ask whether the database answers, not how fast.
            configuration.postgres?.pingTimeout = .seconds(60)
        }
        configure(&configuration)
        self.configuration = configuration
    }

    /// The PostgreSQL server the suite runs against (`LATCHKEY_TEST_DATABASE_URL`), or `nil` for SQLite.
    static var postgresURL: URL? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// Whether this run stores in PostgreSQL (tests of SQLite's files skip then).
    static var usesPostgres: Bool { postgresURL != nil }

    /// Runs `body` against the live server over a real socket.
    func run<T: Sendable>(
        time: any TimeSource = SystemTimeSource(), _ body: @escaping @Sendable (any TestClientProtocol, UseCases) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "latchkey-test")
        logger.logLevel = .warning
        let (useCases, application) = try await buildServer(configuration: configuration, time: time, logger: logger)
        do {
            let result = try await application.test(.live) { client in try await body(client, useCases) }
            try await useCases.shutdown()
            return result
        } catch {
            try? await useCases.shutdown()
            throw error
        }
    }
}

let apiVersionHeader = HTTPField.Name("X-Supabase-Api-Version")!
let decoder = WireJSON.makeDecoder()

extension TestClientProtocol {
    /// Sends JSON with the 2024-01-01 header.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, bearer: String? = nil, headers extra: HTTPFields = [:],
        legacy: Bool = false
    ) async throws -> TestResponse {
        var headers = extra
        if !legacy { headers[apiVersionHeader] = "2024-01-01" }
        if json != nil { headers[.contentType] = "application/json" }
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { $0 }
    }

    /// Signs up and confirms through the mailbox code; returns the session.
    func signUpConfirmed(_ email: String, password: String = "correct horse battery staple", app: UseCases) async throws -> Session {
        let signUp = try await send(.post, "/signup", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(signUp.status == .ok)
        let code = try await latestCode(to: email, app: app)
        let verify = try await send(.post, "/verify", json: #"{"type":"signup","email":"\#(email)","token":"\#(code)"}"#)
        #expect(verify.status == .ok)
        return try verify.decode(Session.self)
    }

    /// The code in the newest message to `email`.
    func latestCode(to email: String, app: UseCases) async throws -> String {
        try await app.settleOutbox()
        let messages = try await app.store.mailbox(to: EmailAddress.canonical(email), limit: 1)
        let text = try #require(messages.first?.message.text)
        let match = try #require(text.firstMatch(of: /is (\d{6,10})\./))
        return String(match.1)
    }

    /// The link secret in the newest message to `email`.
    func latestLinkSecret(to email: String, app: UseCases) async throws -> String {
        try await app.settleOutbox()
        let messages = try await app.store.mailbox(to: EmailAddress.canonical(email), limit: 1)
        let text = try #require(messages.first?.message.text)
        let match = try #require(text.firstMatch(of: /token=([A-Za-z0-9_-]+)/))
        return String(match.1)
    }
}
