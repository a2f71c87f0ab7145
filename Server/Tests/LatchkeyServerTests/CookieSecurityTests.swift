import Testing

@testable import LatchkeyServer

/// The cookies of the hosted pages, the console and the OAuth browser binding: over HTTPS each is
/// `Secure` and carries the `__Secure-` prefix (the binding `__Host-`: no subdomain can plant it);
/// over plain HTTP (development) neither.
@Suite struct CookieSecurityTests {
    @Test func pageCookiesArePrefixedAndSecureOverHTTPS() {
        let https = PageSecurity(serverSecret: Array(repeating: 1, count: 32), externalURL: "https://auth.example/auth/v1")
        for name in [PageSecurity.csrfCookie, AdminConsoleController.cookie, HostedPagesController.signedInCookie] {
            let cookie = https.setCookie(name, "v", maxAge: 60)
            #expect(cookie.hasPrefix("__Secure-\(name)=v; Path=/auth/v1/ui;") && cookie.hasSuffix("; HttpOnly; SameSite=Strict; Secure"))
        }
        let http = PageSecurity(serverSecret: Array(repeating: 1, count: 32), externalURL: "http://localhost:9999")
        #expect(http.setCookie(PageSecurity.csrfCookie, "v", maxAge: 60) == "lk_csrf=v; Path=/ui; Max-Age=60; HttpOnly; SameSite=Strict")
    }

    @Test func theOAuthBindingCookieCrossesApplesFormPostOverHTTPSOnly() {
        let https = BrowserBinding(externalURL: "https://auth.example/auth/v1", lifetime: 600)
        #expect(https.name == "__Host-lk_oauth")
        #expect(https.attributes == "Path=/; Max-Age=600; HttpOnly; Secure; SameSite=None")
        let http = BrowserBinding(externalURL: "http://127.0.0.1:9999", lifetime: 60)
        #expect(http.name == "lk_oauth" && http.attributes == "Path=/; Max-Age=300; HttpOnly; SameSite=Lax")
    }
}
