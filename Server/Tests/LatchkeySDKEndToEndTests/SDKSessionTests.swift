import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import Testing

@Suite struct SDKSessionTests {
    let password = "correct horse battery staple"

    func signedIn(
        _ server: LiveServer, _ email: String, storage: InMemorySessionStorage = InMemorySessionStorage(),
        transport: (any HTTPTransport)? = nil
    ) async throws -> AuthClient {
        let auth = server.client(storage: storage, transport: transport)
        let state = try await auth.signInWithEmailCode(email: email)
        try await state.submit(code: try await server.latestCode(email))
        return auth
    }

    @Test func concurrentCallersWithAnExpiredTokenShareOneRefresh() async throws {
        try await LiveServer.run(configure: { $0.auth.jwt.expiry = 30 }) { server in
            let counter = CountingTransport()
            let auth = try await signedIn(server, "burst@example.com", transport: counter)
            let before = try #require(await auth.currentSession)
            // The 30 s token is inside the 60 s refresh margin: every caller needs a refresh.
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await auth.session().accessToken } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(await counter.count("/token") == 1)
            #expect(await auth.currentSession?.refreshToken != before.refreshToken)
        }
    }

    @Test func refreshFollowsRotationAndAStaleCopyIsSignedOut() async throws {
        try await LiveServer.run(configure: { $0.auth.sessions.refreshReuseInterval = 0 }) { server in
            let storage = InMemorySessionStorage()
            let auth = try await signedIn(server, "rotate@example.com", storage: storage)
            let stale = try #require(await storage.load(key: "latchkey.session"))
            let first = try await auth.refreshSession()
            let second = try await auth.refreshSession()
            #expect(first.refreshToken != second.refreshToken)
            #expect(try await auth.user().email == "rotate@example.com")

            // A copy of the session from before the rotations (a restored backup): its token is
            // reuse, the server ends the session, and both copies are signed out.
            let copyStorage = InMemorySessionStorage()
            await copyStorage.save(stale, key: "latchkey.session")
            let copy = server.client(storage: copyStorage)
            do {
                try await copy.refreshSession()
                Issue.record("a rotated token refreshed")
            } catch let error as LatchkeyError {
                #expect(error.isSessionMissing)
            }
            #expect(await copy.currentSession == nil)
            do {
                try await auth.refreshSession()
            } catch let error as LatchkeyError {
                #expect(error.isSessionMissing)
            }
        }
    }

    @Test func signOutScopes() async throws {
        try await LiveServer.run { server in
            let phone = try await signedIn(server, "scopes@example.com")
            let laptop = try await signedIn(server, "scopes@example.com")
            let tablet = try await signedIn(server, "scopes@example.com")
            try await phone.signOut(scope: .others)
            #expect(await phone.currentSession != nil)
            #expect(try await phone.user().email == "scopes@example.com")
            for other in [laptop, tablet] {
                do {
                    try await other.refreshSession()
                    Issue.record("signed-out session refreshed")
                } catch let error as LatchkeyError {
                    #expect(error.isSessionMissing)
                }
            }
            let again = try await signedIn(server, "scopes@example.com")
            try await phone.signOut(scope: .local)
            #expect(try await again.user().email == "scopes@example.com")
            try await again.signOut(scope: .global)
            #expect(await again.currentSession == nil)
        }
    }
}
