import Foundation
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// The SDK's `oauth` namespace against a live server (#40): a first-party app as the OAuth
/// server's consent page reads a request, approves or denies it, and lists and revokes the
/// user's grants.
@Suite struct SDKOAuthConsentTests {
    static let password = "correct horse battery staple"
    static let redirect = "https://rp.example.com/callback"

    @Test func theAppReadsApprovesAndRevokes() async throws {
        try await LiveServer.run(configure: { configuration in
            configuration.auth.oauthServer = OAuthClients.Settings(enabled: true)
            configuration.auth.oauthFlow = OAuthServer.Settings(consentPage: "https://app.example.com/oauth/consent")
        }) { server in
            let clients = server.app.admin.oauthClients
            let client = try await clients.register(
                OAuthClientRequest(redirectURIs: [Self.redirect], clientName: "Photo Printer"), dynamic: false)
            let auth = server.client()
            _ = try await auth.signUp(email: "rp@example.com", password: Self.password)
            try await auth.verifyEmail(email: "rp@example.com", code: try await server.latestCode("rp@example.com"))

            /// A client's request, as the browser would bring it to the app: its authorization id.
            func request(scope: String) async throws -> String {
                let location = try await server.app.browser.oauthServer.authorize(
                    OAuthAuthorizeRequest(
                        clientID: client.clientID.uuidString, redirectURI: Self.redirect, scope: scope, state: "s",
                        codeChallenge: String(repeating: "c", count: 43), codeChallengeMethod: "S256"), client: ClientInfo(ip: "192.0.2.9"))
                return try #require(location.split(separator: "=").last.map(String.init))
            }

            let id = try await request(scope: "openid email")
            guard case .pending(let details) = try await auth.oauth.authorizationDetails(id: id) else {
                Issue.record("not pending")
                return
            }
            #expect(details.client.name == "Photo Printer" && details.scopes == ["openid", "email"])
            #expect(details.user.email == "rp@example.com" && details.redirectURI == Self.redirect)
            let back = try await auth.oauth.approve(id: id)
            #expect(back.absoluteString.hasPrefix(Self.redirect + "?code=") && back.absoluteString.hasSuffix("&state=s"))
            await #expect { try await auth.oauth.approve(id: id) } throws: { ($0 as? LatchkeyError)?.code == .validationFailed }

            // Asked again within the grant: approved on reading.
            guard case .approved(let straight) = try await auth.oauth.authorizationDetails(id: try await request(scope: "email")) else {
                Issue.record("not remembered")
                return
            }
            #expect(straight.absoluteString.contains("code="))

            // Denied: back with access_denied. (A request is answered by the user who read it, as GoTrue's.)
            let wider = try await request(scope: "openid profile")
            await #expect { try await auth.oauth.deny(id: wider) } throws: { ($0 as? LatchkeyError)?.isOAuthAuthorizationNotFound == true }
            _ = try await auth.oauth.authorizationDetails(id: wider)
            #expect(try await auth.oauth.deny(id: wider).absoluteString.contains("error=access_denied"))
            await #expect { try await auth.oauth.authorizationDetails(id: "A" + String(repeating: "b", count: 31)) } throws: {
                ($0 as? LatchkeyError)?.isOAuthAuthorizationNotFound == true
            }

            let grants = try await auth.oauth.grants()
            #expect(grants.map(\.client.name) == ["Photo Printer"] && grants.first?.scopes == ["openid", "email"])
            try await auth.oauth.revokeGrant(clientID: client.clientID.uuidString)
            #expect(try await auth.oauth.grants().isEmpty)
            await #expect { try await auth.oauth.revokeGrant(clientID: client.clientID.uuidString) } throws: {
                ($0 as? LatchkeyError)?.isOAuthConsentNotFound == true
            }
        }
    }
}
