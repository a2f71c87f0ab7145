import AsyncHTTPClient
import Foundation
import LatchkeyAPI
import NIOCore
import NIOHTTP1

/// The few calls the benchmark makes, over AsyncHTTPClient.
struct API: Sendable {
    struct BenchUser: Sendable {
        var email: String
        var password: String
        var accessToken: String
        var refreshToken: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let client: HTTPClient
    let base: String

    func post(_ path: String, _ body: String, bearer: String? = nil) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Supabase-Api-Version", value: "2024-01-01")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        request.body = .bytes(ByteBuffer(string: body))
        return try await execute(request)
    }

    func get(_ path: String, bearer: String? = nil, json: Bool = true) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        if json { request.headers.add(name: "Accept", value: "application/json") }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await execute(request)
    }

    func execute(_ request: HTTPClientRequest) async throws -> Data {
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 4 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "\(response.status.code) \(String(buffer: body))")
        }
        return Data(body.readableBytesView)
    }

    /// The code in the newest message to `email` sent after `since`; mail is delivered from the
    /// outbox just after the request answers, so this polls until it is there.
    func latestCode(_ email: String, since: Date, pause: Duration = .milliseconds(2), reads: ReadCounter? = nil) async throws
        -> String
    {
        for _ in 0..<(pause < .milliseconds(1) ? 20_000 : 500) {
            reads?.count += 1
            let data = try await get("/_dev/mailbox?to=\(email)")
            let newest = try JSONDecoder().decode(MailboxResponse.self, from: data).messages.first
            if let newest, let created = WireJSON.parseDate(newest.createdAt), created >= since.addingTimeInterval(-0.001),
                let match = newest.text.firstMatch(of: /is (\d{6,10})\./)
            {
                return String(match.1)
            }
            try await Task.sleep(for: pause)
        }
        throw Failure(description: "no code for \(email)")
    }

    func makeUsers(count: Int) async throws -> [BenchUser] {
        var users: [BenchUser] = []
        let run = UUID().uuidString.prefix(8).lowercased()
        for index in 0..<count {
            let email = "bench-\(run)-\(index)@example.com"
            let password = "benchmark passphrase \(run) \(index)"
            let sent = Date()
            _ = try await post("/signup", #"{"email":"\#(email)","password":"\#(password)"}"#)
            let code = try await latestCode(email, since: sent)
            let data = try await post("/verify", #"{"type":"signup","email":"\#(email)","token":"\#(code)"}"#)
            let session = try WireJSON.makeDecoder().decode(Session.self, from: data)
            users.append(BenchUser(email: email, password: password, accessToken: session.accessToken, refreshToken: session.refreshToken))
        }
        return users
    }

    func signIn(_ email: String, _ password: String) async throws -> Session {
        let data = try await post("/token?grant_type=password", #"{"email":"\#(email)","password":"\#(password)"}"#)
        return try WireJSON.makeDecoder().decode(Session.self, from: data)
    }

    /// The whole email-code sign-in: ask for a code, read it from the dev mailbox, submit it.
    /// Asks for a code; returns how long after `/otp` answered its message was read from the dev
    /// mailbox (polled every 0.2 ms) and whether the first read already had it.
    func mailDelay(_ email: String) async throws -> (seconds: Double, firstRead: Bool) {
        let sent = Date()
        _ = try await post("/otp", #"{"email":"\#(email)"}"#)
        let answered = Date()
        let reads = ReadCounter()
        _ = try await latestCode(email, since: sent, pause: .microseconds(200), reads: reads)
        return (Date().timeIntervalSince(answered), reads.count == 1)
    }

    func codeSignIn(_ email: String) async throws {
        let sent = Date()
        _ = try await post("/otp", #"{"email":"\#(email)"}"#)
        let code = try await latestCode(email, since: sent)
        _ = try await post("/verify", #"{"type":"email","email":"\#(email)","token":"\#(code)"}"#)
    }

    func refresh(_ token: String) async throws -> String {
        let data = try await post("/token?grant_type=refresh_token", #"{"refresh_token":"\#(token)"}"#)
        return try WireJSON.makeDecoder().decode(Session.self, from: data).refreshToken
    }

    func getUser(_ accessToken: String) async throws {
        _ = try await get("/user", bearer: accessToken)
    }
}

/// How many mailbox reads a code took.
final class ReadCounter: @unchecked Sendable {
    var count = 0
}
