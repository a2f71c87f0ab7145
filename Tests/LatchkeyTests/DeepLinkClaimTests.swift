import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Issue #36 defect 6: `handle(_:)` takes only the links meant for sign-in and leaves the app's
/// own deep links (which may carry a `?code=` or `?message=` of their own) to the app.
@Suite struct DeepLinkClaimTests {
    static func client(redirectURL: String?) -> AuthClient {
        AuthClient(
            configuration: .init(
                url: Fixtures.url, storage: InMemorySessionStorage(), transport: MockTransport(), autoRefresh: false,
                redirectURL: redirectURL.flatMap(URL.init(string:))))
    }

    @Test(
        arguments: [
            ("myapp://login", "myapp://login?code=abc", true),
            ("myapp://login", "myapp://login/callback?code=abc", true),
            ("myapp://login", "myapp://login#access_token=a&refresh_token=b&expires_in=3600", true),
            ("myapp://login", "myapp://login#error=access_denied&error_code=otp_expired", true),
            ("myapp://login", "myapp://login?message=Confirm+the+link+sent+to+the+other+address", true),
            ("myapp://login", "myapp://login?token_hash=t&type=signup", true),
            ("myapp://login", "myapp://login", false),
            ("myapp://login", "myapp://login?tab=settings", false),
            ("myapp://login", "myapp://settings?code=abc", false),
            ("myapp://login", "myapp://loginx?code=abc", false),
            ("myapp://login", "otherapp://login?code=abc", false),
            ("https://app.example.com/auth", "https://app.example.com/auth/callback?code=x", true),
            ("https://app.example.com/auth", "HTTPS://APP.example.com/auth?code=x", true),
            ("https://app.example.com/auth", "https://app.example.com/authz?code=x", false),
            ("https://app.example.com/auth", "https://app.example.com/orders?code=promo", false),
            ("https://app.example.com/auth", "https://app.example.com:8443/auth?code=x", false),
            ("https://app.example.com/auth", "https://evil.example.com/auth?code=x", false),
            // No redirect URL: only what cannot be an app's own link.
            (nil, "myapp://anything?code=x", false),
            (nil, "myapp://anything?message=hello", false),
            (nil, "myapp://x#error_code=otp_expired&error_description=expired", true),
            (nil, "myapp://x#access_token=a&refresh_token=b", true),
            (nil, "myapp://x?token_hash=t&type=recovery", true),
        ] as [(String?, String, Bool)])
    func onlySignInLinksAreClaimed(redirect: String?, link: String, claimed: Bool) throws {
        let url = try #require(URL(string: link))
        #expect(Self.client(redirectURL: redirect).isAuthLink(url) == claimed)
    }

    /// A link that is not the SDK's is neither exchanged nor reported as a failed link.
    @Test func anAppLinkIsLeftAloneAndNothingIsSent() async throws {
        let transport = MockTransport()
        let auth = AuthClient(
            configuration: .init(
                url: Fixtures.url, storage: InMemorySessionStorage(), transport: transport, autoRefresh: false,
                redirectURL: URL(string: "myapp://login")))
        await auth.waitUntilReady()
        #expect(auth.handle(try #require(URL(string: "myapp://orders?code=SUMMER25"))) == false)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await transport.requests.isEmpty)
    }
}
