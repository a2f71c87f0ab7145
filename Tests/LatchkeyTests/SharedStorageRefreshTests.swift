import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Issue #36 defect 7: two processes share one storage (an app and its extension on one keychain
/// group). A refresh reads the storage first, so a session the other process rotated is adopted
/// instead of replaying the old refresh token, which the server would take as reuse and end.
@Suite struct SharedStorageRefreshTests {
    @Test func aSessionTheOtherProcessRotatedIsAdoptedWithoutARequest() async throws {
        let storage = InMemorySessionStorage()
        let transport = MockTransport()
        // This process's session was issued half an hour before the one the extension rotated to.
        let older = Int(Date().timeIntervalSince1970) + 1800
        let app = try await Fixtures.client(transport: transport, storage: storage, stored: try Fixtures.session(expiresAt: older))
        // The extension rotated the session; its access token is fresh.
        await storage.save(
            try WireJSON.makeEncoder().encode(try Fixtures.session(access: "access-2", refresh: "refresh-2")), key: "latchkey.session")
        let session = try await app.refreshSession()
        #expect(session.accessToken == "access-2" && session.refreshToken == "refresh-2")
        #expect(await transport.requests.isEmpty)
        #expect(try await app.session().accessToken == "access-2")
    }

    @Test func anExpiredRotatedSessionIsRefreshedWithItsOwnToken() async throws {
        let storage = InMemorySessionStorage()
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-3", refresh: "refresh-3"))
        let past = Int(Date().timeIntervalSince1970) - 10
        let app = try await Fixtures.client(transport: transport, storage: storage, stored: try Fixtures.session(expiresAt: past - 3600))
        await storage.save(
            try WireJSON.makeEncoder().encode(try Fixtures.session(access: "access-2", refresh: "refresh-2", expiresAt: past)),
            key: "latchkey.session")
        let session = try await app.refreshSession()
        #expect(session.accessToken == "access-3")
        let sent = try #require(await transport.requests.first)
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self).contains("refresh-2"))
        #expect(!String(decoding: sent.body ?? Data(), as: UTF8.self).contains("refresh-1"))
    }

    /// Storage that holds another user's session (a sign-in elsewhere in between) is not adopted.
    @Test func anotherUsersSessionInStorageIsNotAdopted() async throws {
        let storage = InMemorySessionStorage()
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-3", refresh: "refresh-3"))
        let app = try await Fixtures.client(transport: transport, storage: storage, stored: try Fixtures.session())
        let other = Fixtures.sessionJSON(access: "access-x", refresh: "refresh-x")
            .replacingOccurrences(of: Fixtures.userID, with: "00000000-0000-0000-0000-000000000001")
        await storage.save(Data(other.utf8), key: "latchkey.session")
        _ = try await app.refreshSession()
        let sent = try #require(await transport.requests.first)
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self).contains("refresh-1"))
    }

    /// Storage that missed this process's own last write (a locked keychain) holds an earlier
    /// session: it is not taken back.
    @Test func anEarlierSessionInStorageIsNotTakenBack() async throws {
        let storage = InMemorySessionStorage()
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-3", refresh: "refresh-3"))
        let app = try await Fixtures.client(transport: transport, storage: storage, stored: try Fixtures.session())
        let earlier = Int(Date().timeIntervalSince1970) - 600
        await storage.save(
            try WireJSON.makeEncoder().encode(try Fixtures.session(access: "access-0", refresh: "refresh-0", expiresAt: earlier)),
            key: "latchkey.session")
        _ = try await app.refreshSession()
        let sent = try #require(await transport.requests.first)
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self).contains("refresh-1"))
    }
}
