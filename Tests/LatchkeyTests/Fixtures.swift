import Foundation
import Latchkey
import LatchkeyTesting

enum Fixtures {
    static let url = URL(string: "https://auth.example.com")!
    static let userID = "8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11"

    static func userJSON(email: String = "ada@example.com", confirmed: Bool = true) -> String {
        let confirmedAt = confirmed ? #""email_confirmed_at":"2026-01-01T00:00:00Z","# : ""
        return
            #"{"id":"\#(userID)","aud":"authenticated","role":"authenticated","email":"\#(email)","phone":"",\#(confirmedAt)"app_metadata":{"provider":"email"},"user_metadata":{},"identities":[],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","is_anonymous":false}"#
    }

    static func sessionJSON(access: String = "access-1", refresh: String = "refresh-1", expiresAt: Int? = nil) -> String {
        let expiry = expiresAt ?? Int(Date().timeIntervalSince1970) + 3600
        return
            #"{"access_token":"\#(access)","token_type":"bearer","expires_in":3600,"expires_at":\#(expiry),"refresh_token":"\#(refresh)","user":\#(userJSON())}"#
    }

    static func session(access: String = "access-1", refresh: String = "refresh-1", expiresAt: Int? = nil) throws -> Session {
        try WireJSON.makeDecoder().decode(
            Session.self, from: Data(sessionJSON(access: access, refresh: refresh, expiresAt: expiresAt).utf8))
    }

    static func error(_ code: String, _ message: String = "message", extra: String = "") -> String {
        #"{"code":"\#(code)","message":"\#(message)"\#(extra)}"#
    }

    /// A client over a mock transport and in-memory storage, optionally already signed in.
    static func client(
        transport: MockTransport = MockTransport(), storage: InMemorySessionStorage = InMemorySessionStorage(),
        stored: Session? = nil, autoRefresh: Bool = false, flowType: FlowType = .implicit
    ) async throws -> AuthClient {
        if let stored { await storage.save(try WireJSON.makeEncoder().encode(stored), key: "latchkey.session") }
        let client = AuthClient(
            configuration: .init(url: url, storage: storage, transport: transport, autoRefresh: autoRefresh, flowType: flowType))
        await client.waitUntilReady()
        return client
    }
}
