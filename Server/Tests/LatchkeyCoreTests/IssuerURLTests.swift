import Testing

@testable import LatchkeyCore

/// Where keys may be fetched from: HTTPS anywhere, plain HTTP on loopback only, as a browser
/// would read each URL.
@Suite struct IssuerURLTests {
    @Test(arguments: [
        ("https://appleid.apple.com", true),
        ("https://accounts.google.com/", true),
        ("http://127.0.0.1:8080/realms/x", true),
        ("http://127.1.2.3", true),
        ("http://localhost:9000", true),
        ("http://[::1]:9000", true),
        ("http://example.com", false),
        ("http://127.0.0.1.example.com", false),
        ("http://0127.0.0.1", false),
        ("http://10.0.0.1", false),
        ("https://user:pass@example.com", false),
        ("https://example.com/#frag", false),
        ("ftp://example.com", false),
        ("file:///etc/passwd", false),
        ("https://", false),
        ("javascript:alert(1)", false),
        ("", false),
    ])
    func onlyHTTPSOrLoopback(_ url: String, _ accepted: Bool) {
        #expect(IssuerURL.isAcceptable(url) == accepted)
    }

    @Test func discoveryIsUnderTheIssuer() {
        #expect(IssuerURL.discovery(for: "https://a.example/realms/x/") == "https://a.example/realms/x/.well-known/openid-configuration")
        #expect(IssuerURL.discovery(for: "https://a.example") == "https://a.example/.well-known/openid-configuration")
    }
}
