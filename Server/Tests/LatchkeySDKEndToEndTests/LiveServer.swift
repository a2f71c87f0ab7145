import Foundation
import Hummingbird
import HummingbirdTesting
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real server on a socket and helpers to read its dev mailbox.
struct LiveServer {
    let app: UseCases
    let url: URL

    /// Runs `body` with a live server built by the composition root.
    ///
    /// With `matchExternalURL`, the server listens on a port chosen beforehand and its
    /// `API_EXTERNAL_URL` is the address clients use (device-key assertions are addressed to it).
    static func run(
        matchExternalURL: Bool = false,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-sdk-\(UUID().uuidString)").path
        var auth = AuthConfiguration(rateLimits: .unlimited)
        auth.password.scryptLogN = 10
        auth.otp.sendFrequency = 0
        auth.uriAllowList = ["myapp://auth-callback"]
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, hashingThreads: 2, auth: auth)
        if let url = postgresURL {
            let schema = "t_" + UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: "")
            configuration.postgres = PostgresDatabase.Options(url: url, schema: schema, poolSize: 6)
        }
        if matchExternalURL {
            configuration.port = try freePort()
            configuration.auth.externalURL = "http://127.0.0.1:\(configuration.port)"
        }
        configure(&configuration)
        do {
            try await serve(configuration, matchExternalURL: matchExternalURL, body)
        } catch {
            if let postgres = configuration.postgres { await dropSchema(postgres) }
            throw error
        }
        if let postgres = configuration.postgres { await dropSchema(postgres) }
    }

    static func serve(
        _ configuration: ServerConfiguration, matchExternalURL: Bool, _ body: @escaping @Sendable (LiveServer) async throws -> Void
    ) async throws {
        var logger = Logger(label: "latchkey-sdk-test")
        logger.logLevel = .warning
        let (app, application) = try await buildServer(configuration: configuration, logger: logger)
        if matchExternalURL {
            // HummingbirdTesting listens on a port of its own choosing: run the service directly.
            let url = URL(string: configuration.auth.externalURL)!
            let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
            let running = Task { try await group.run() }
            do {
                try await waitUntilHealthy(url)
                try await body(LiveServer(app: app, url: url))
            } catch {
                await group.triggerGracefulShutdown()
                _ = await running.result
                try? await app.shutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await running.value
            try await app.shutdown()
            return
        }
        do {
            try await application.test(.live) { client in
                let port = try #require(client.port)
                try await body(LiveServer(app: app, url: URL(string: "http://127.0.0.1:\(port)")!))
            }
            try await app.shutdown()
        } catch {
            try? await app.shutdown()
            throw error
        }
    }

    /// The PostgreSQL server the suite runs against (`LATCHKEY_TEST_DATABASE_URL`), or `nil` for SQLite.
    static var postgresURL: URL? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// Whether this run stores in PostgreSQL.
    static var usesPostgres: Bool { postgresURL != nil }

    /// Drops a test server's schema.
    static func dropSchema(_ postgres: PostgresDatabase.Options) async {
        guard let cleaner = try? await PostgresDatabase.open(.init(url: postgres.url, schema: postgres.schema, poolSize: 1)) else { return }
        _ = try? await cleaner.read { try await $0.query("DROP SCHEMA \(postgres.schema) CASCADE", []) }
        try? await cleaner.close()
    }

    /// A client of this server with its own in-memory storage (or the one given).
    func client(
        storage: InMemorySessionStorage = InMemorySessionStorage(), transport: (any HTTPTransport)? = nil,
        flowType: FlowType = .pkce
    ) -> AuthClient {
        AuthClient(
            configuration: .init(
                url: url, storage: storage, transport: transport ?? URLSessionTransport(), autoRefresh: false,
                redirectURL: URL(string: "myapp://auth-callback"), flowType: flowType))
    }

    /// Presses the confirmation page's button for an emailed link and returns where it redirects.
    func click(_ link: URL) async throws -> String {
        let items = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let secret = try #require(items.first { $0.name == "token" }?.value)
        let type = items.first { $0.name == "type" }?.value ?? "signup"
        var request = URLRequest(url: url.appendingPathComponent("verify"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("token=\(secret)&type=\(type)&redirect_to=myapp%3A%2F%2Fauth-callback".utf8)
        return try await NoRedirect.location(of: request)
    }

    /// The code in the newest message to `email`.
    func latestCode(_ email: String) async throws -> String {
        try await app.settleOutbox()
        let text = try #require(try await app.store.mailbox(to: email, limit: 1).first?.message.text)
        return String(try #require(text.firstMatch(of: /is (\d{6,10})\./)).1)
    }

    /// The link in the newest message to `email`.
    func latestLink(_ email: String) async throws -> URL {
        try await app.settleOutbox()
        let text = try #require(try await app.store.mailbox(to: email, limit: 1).first?.message.text)
        let link = try #require(text.firstMatch(of: /(http:\/\/\S+\/verify\?\S+)/)).1
        return try #require(URL(string: String(link)))
    }
}

/// Every byte of the SQLite database (and its write-ahead log) in `directory`, to check what is
/// stored at rest.
func databaseBytes(in directory: String) -> Data {
    ["latchkey.sqlite", "latchkey.sqlite-wal"].reduce(into: Data()) { bytes, file in
        bytes += (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))) ?? Data()
    }
}

/// Waits until `GET /health` answers (at most 10 s).
func waitUntilHealthy(_ url: URL) async throws {
    for _ in 0..<200 {
        if let (_, response) = try? await URLSession.shared.data(from: url.appendingPathComponent("health")),
            (response as? HTTPURLResponse)?.statusCode == 200
        {
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw POSIXError(.ETIMEDOUT)
}

/// A TCP port on 127.0.0.1 that nothing listens on right now, below Linux's ephemeral range
/// (32768–60999) so no server binding port 0 can be handed it before ours binds.
func freePort() throws -> Int {
    for _ in 0..<100 {
        let candidate = Int.random(in: 20_000..<32_000)
        if canBind(candidate) { return candidate }
    }
    throw POSIXError(.EADDRINUSE)
}

func canBind(_ port: Int) -> Bool {
    #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
    }
}

/// Counts the requests a client sends, per path, and passes them on.
actor CountingTransport: HTTPTransport {
    let inner = URLSessionTransport()
    var counts: [String: Int] = [:]

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        counts[request.url?.path ?? "", default: 0] += 1
        return try await inner.send(request)
    }

    func count(_ path: String) -> Int { counts[path] ?? 0 }
}
