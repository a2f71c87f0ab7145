import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyDemoModels

/// The example app's view models (Examples/LatchkeyDemo/Sources/Models), plain Swift over the SDK.
@MainActor @Suite struct DemoModelTests {
    static let user =
        #"{"id":"8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11","aud":"authenticated","role":"authenticated","email":"ada@example.com","phone":"","app_metadata":{"provider":"email"},"user_metadata":{},"identities":[],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","is_anonymous":false}"#
    static var session: String {
        #"{"access_token":"access-1","token_type":"bearer","expires_in":3600,"expires_at":\#(Int(Date().timeIntervalSince1970) + 3600),"refresh_token":"refresh-1","user":\#(user)}"#
    }
    static let structured = ["Content-Type": "application/json", "X-Supabase-Api-Version": "2024-01-01"]

    static func signedIn(_ transport: MockTransport) async throws -> AuthClient {
        let storage = InMemorySessionStorage()
        await storage.save(Data(session.utf8), key: "latchkey.session")
        let client = AuthClient(
            configuration: .init(
                url: URL(string: "https://auth.example.com")!, storage: storage, transport: transport, autoRefresh: false,
                deviceKeyStore: SoftwareDeviceKeyStore(storage: InMemorySessionStorage())))
        await client.waitUntilReady()
        return client
    }

    @Test func deletingAnAccountAsksForTheEmailedCodeWhenTheSignInIsOld() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "DELETE", path: "/user",
            MockTransport.Reply(
                status: 400, headers: Self.structured,
                body: Data(#"{"code":"reauthentication_needed","message":"Deleting the account needs a recent sign-in"}"#.utf8)),
            MockTransport.Reply(
                status: 400, headers: Self.structured,
                body: Data(#"{"code":"reauthentication_not_valid","message":"Verification code is invalid"}"#.utf8)),
            MockTransport.Reply(status: 204, body: Data()))
        await transport.respond(to: "GET", path: "/reauthenticate", json: "{}")
        let client = try await Self.signedIn(transport)
        let account = AccountModel(client: client)

        await account.deleteAccount()
        #expect(account.deletion == .needsCode && account.problem == nil)
        #expect(await transport.count("GET", "/reauthenticate") == 1)
        await account.deleteAccount(code: "000000")
        #expect(account.deletion == .needsCode && account.problem == "That code is not the one we sent.")
        await account.deleteAccount(code: "123456")
        #expect(account.deletion == .idle && account.problem == nil)
        #expect(await client.currentSession == nil)
        let sent = await transport.requests.filter { $0.method == "DELETE" }.compactMap { $0.json?["nonce"] }
        #expect(sent == ["000000", "123456"])
    }

    @Test func aSecondFactorCodeGoesToTheAuthenticatorAppAndARecoveryCodeStandsIn() async throws {
        let transport = MockTransport()
        let factor =
            #"{"id":"11111111-2222-3333-4444-555555555555","friendly_name":"Phone","factor_type":"totp","status":"verified","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#
        await transport.respond(
            to: "POST", path: "/factors/11111111-2222-3333-4444-555555555555/challenge",
            json: #"{"id":"99999999-2222-3333-4444-555555555555","type":"totp","expires_at":1900000000}"#)
        await transport.respond(to: "POST", path: "/factors/11111111-2222-3333-4444-555555555555/verify", json: Self.session)
        await transport.respond(to: "POST", path: "/recovery-codes/verify", json: Self.session)
        let client = try await Self.signedIn(transport)
        // A password sign-in (aal1) by a user with a verified factor: the token says so.
        let claims = Data(#"{"sub":"8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11","aal":"aal1","amr":[{"method":"password","timestamp":1}]}"#.utf8)
        let token = ["e30", claims.base64EncodedString(), "c2ln"].joined(separator: ".").replacingOccurrences(of: "=", with: "")
        let halfway = try WireJSON.makeDecoder().decode(
            Session.self,
            from: Data(
                Self.session.replacingOccurrences(of: #""identities":[]"#, with: #""identities":[],"factors":[\#(factor)]"#)
                    .replacingOccurrences(of: "access-1", with: token).utf8))
        let auth = AuthModel(client: client)
        auth.apply(AuthStateChange(event: .signedIn, session: halfway))
        let model = SecondFactorModel(auth: auth)
        #expect(model.takesCode && model.phone == nil && model.securityKey == nil)
        await model.submit("123456")
        #expect(model.problem == nil && !model.isWorking)
        let verify = await transport.requests.last
        #expect(verify?.json?["code"] == "123456")

        auth.apply(AuthStateChange(event: .signedIn, session: halfway))
        model.usesRecoveryCode = true
        await model.submit("abcde-fghij")
        #expect(model.problem == nil && auth.isSignedIn)
        #expect(await transport.requests.last?.path == "/recovery-codes/verify")
    }
}
