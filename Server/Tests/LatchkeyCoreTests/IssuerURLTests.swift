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

    /// A public provider's document (its `jwks_uri`, token endpoint) cannot send Latchkey to an
    /// internal address: loopback, private, link-local (a cloud's metadata service), in any
    /// spelling of the literal; a loopback issuer (local development, tests) may.
    @Test(arguments: [
        ("https://keys.example/jwks", "https://idp.example", true),
        ("https://169.254.169.254/latest/meta-data", "https://idp.example", false),
        ("https://10.0.0.8/jwks", "https://idp.example", false),
        ("https://172.20.1.1/jwks", "https://idp.example", false),
        ("https://172.32.1.1/jwks", "https://idp.example", true),
        ("https://192.168.1.1/jwks", "https://idp.example", false),
        ("https://100.100.100.200/jwks", "https://idp.example", false),
        ("https://0.0.0.0/jwks", "https://idp.example", false),
        ("https://[::1]/jwks", "https://idp.example", false),
        ("https://[fe80::1]/jwks", "https://idp.example", false),
        ("https://[fd00:ec2::254]/jwks", "https://idp.example", false),
        ("https://[::ffff:169.254.169.254]/jwks", "https://idp.example", false),
        // The same addresses in the other spellings `inet_pton` reads.
        ("https://[0:0:0:0:0:0:0:1]/jwks", "https://idp.example", false),
        ("https://[0000::0001]/jwks", "https://idp.example", false),
        ("https://[::ffff:a9fe:a9fe]/jwks", "https://idp.example", false),
        ("https://[::a9fe:a9fe]/jwks", "https://idp.example", false),
        ("https://[64:ff9b::a9fe:a9fe]/jwks", "https://idp.example", false),
        ("https://[64:ff9b::808:808]/jwks", "https://idp.example", true),
        ("https://[FE80::1]/jwks", "https://idp.example", false),
        ("https://[fec0::1]/jwks", "https://idp.example", false),
        ("https://[::]/jwks", "https://idp.example", false),
        ("https://[2001:db8::1]/jwks", "https://idp.example", true),
        ("http://127.0.0.1:9/jwks", "https://idp.example", false),
        ("https://localhost/jwks", "https://idp.example", false),
        ("http://127.0.0.1:9/jwks", "http://127.0.0.1:8080/realms/x", true),
        ("https://10.0.0.8/jwks", "https://10.0.0.7/realms/x", true),
    ])
    func documentsCannotPointInside(_ url: String, _ issuer: String, _ accepted: Bool) {
        #expect(IssuerURL.isAcceptable(url, namedBy: issuer) == accepted, "\(url) named by \(issuer)")
    }

    @Test func discoveryIsUnderTheIssuer() {
        #expect(IssuerURL.discovery(for: "https://a.example/realms/x/") == "https://a.example/realms/x/.well-known/openid-configuration")
        #expect(IssuerURL.discovery(for: "https://a.example") == "https://a.example/.well-known/openid-configuration")
    }
}
