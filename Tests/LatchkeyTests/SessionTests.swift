import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct SessionLifecycleTests {
    @Test func aHundredCallersWithAnExpiredTokenCauseOneRefresh() async throws {
        let transport = MockTransport()
        await transport.setDelay(.milliseconds(100))
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-2", refresh: "refresh-2"))
        let expired = try Fixtures.session(expiresAt: Int(Date().timeIntervalSince1970) - 10)
        let auth = try await Fixtures.client(transport: transport, stored: expired)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await auth.session().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["access-2"])
        #expect(await transport.count("POST", "/token") == 1)
        #expect(await transport.requests.first?.json == ["refresh_token": "refresh-1"])
    }

    @Test func aNetworkFailureKeepsTheSessionAndADeadSessionSignsOut() async throws {
        let transport = MockTransport()
        let storage = InMemorySessionStorage()
        let expired = try Fixtures.session(expiresAt: Int(Date().timeIntervalSince1970) - 10)
        let auth = try await Fixtures.client(transport: transport, storage: storage, stored: expired)
        await transport.setNetworkDown(true)
        do {
            _ = try await auth.session()
        } catch let error as LatchkeyError {
            #expect(error.isNetworkError)
        }
        #expect(await auth.currentSession != nil)
        #expect(await storage.load(key: "latchkey.session") != nil)

        await transport.setNetworkDown(false)
        await transport.respond(
            to: "POST", path: "/token", status: 400,
            json: Fixtures.error("refresh_token_already_used", "Invalid Refresh Token: Already Used"))
        let events = auth.authStateChanges
        do {
            _ = try await auth.session()
        } catch let error as LatchkeyError {
            #expect(error.isSessionMissing)
        }
        #expect(await auth.currentSession == nil)
        #expect(await storage.load(key: "latchkey.session") == nil)
        var seen: [AuthEvent] = []
        for await change in events {
            seen.append(change.event)
            if seen.count == 2 { break }
        }
        #expect(seen == [.initialSession, .signedOut])
    }

    @Test func theStreamStartsWithTheRestoredSession() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-2"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        var iterator = auth.authStateChanges.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.event == .initialSession)
        #expect(first?.session?.accessToken == "access-1")
        try await auth.refreshSession()
        let second = await iterator.next()
        #expect(second?.event == .tokenRefreshed)
        #expect(second?.session?.accessToken == "access-2")
    }

    @Test func aLockedStoreMeansTryLaterNotSignedOut() async throws {
        let storage = FlakyStorage()
        let auth = AuthClient(configuration: .init(url: Fixtures.url, storage: storage, transport: MockTransport(), autoRefresh: false))
        do {
            _ = try await auth.session()
            Issue.record("expected storage_unavailable")
        } catch let error as LatchkeyError {
            #expect(error.code == .storageUnavailable)
        }
        await storage.unlock(with: try WireJSON.makeEncoder().encode(try Fixtures.session()))
        #expect(try await auth.session().accessToken == "access-1")
    }

    @Test func autoRefreshRenewsBeforeExpiry() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-2", refresh: "refresh-2"))
        let soon = try Fixtures.session(expiresAt: Int(Date().timeIntervalSince1970) + 61)
        let auth = try await Fixtures.client(transport: transport, stored: soon, autoRefresh: true)
        for _ in 0..<100 where await auth.currentSession?.accessToken != "access-2" { try await Task.sleep(for: .milliseconds(50)) }
        #expect(await auth.currentSession?.accessToken == "access-2")
    }

    @Test func deepLinksCarryASessionOrAnError() async throws {
        let transport = MockTransport()
        await transport.respond(to: "GET", path: "/user", json: Fixtures.userJSON())
        let auth = try await Fixtures.client(transport: transport)
        let link = URL(
            string: "myapp://verify#access_token=at&expires_at=1900000000&expires_in=3600&refresh_token=rt&token_type=bearer&type=signup")!
        let session = try await auth.session(from: link)
        #expect(session.refreshToken == "rt")
        #expect(session.expiresAt == 1_900_000_000)
        #expect(await transport.requests.first?.headers["Authorization"] == "Bearer at")
        do {
            try await auth.session(
                from: URL(string: "myapp://verify#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid")!)
        } catch let error as LatchkeyError {
            #expect(error.code == .otpExpired)
        }
        do {
            try await auth.session(from: URL(string: "myapp://verify")!)
        } catch let error as LatchkeyError {
            #expect(error.code == .invalidLink)
        }
    }

    @Test func fileStorageIsPrivateAndRoundTrips() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString)")
        let storage = FileSessionStorage(directory: directory)
        try await storage.save(Data("secret".utf8), key: "latchkey.session")
        try await storage.save(Data("newer".utf8), key: "latchkey.session")
        #expect(try await storage.load(key: "latchkey.session") == Data("newer".utf8))
        let file = directory.appendingPathComponent("latchkey.session.json").path
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        try await storage.remove(key: "latchkey.session")
        #expect(try await storage.load(key: "latchkey.session") == nil)
    }

    @Test func completionHandlersDeliverResults() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/token", status: 400, json: Fixtures.error("invalid_credentials", "Invalid login credentials"))
        let auth = try await Fixtures.client(transport: transport)
        let result = await withCheckedContinuation { continuation in
            auth.signIn(email: "a@example.com", password: "pw") { continuation.resume(returning: $0) }
        }
        guard case .failure(let error as LatchkeyError) = result else { Issue.record("expected failure"); return }
        #expect(error.isInvalidCredentials)
    }
}

/// A store that is locked until told otherwise, like a keychain before first unlock.
actor FlakyStorage: SessionStorage {
    var data: Data?
    var locked = true

    func unlock(with data: Data) {
        self.data = data
        locked = false
    }

    func load(key: String) throws -> Data? {
        if locked { throw LatchkeyError(code: .storageUnavailable, message: "locked") }
        return data
    }

    func save(_ data: Data, key: String) { self.data = data }
    func remove(key: String) { data = nil }
}
