import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyServer

/// The hosted pages' pieces below the browser: which return addresses and challenges a flow
/// accepts (read as a browser reads them), what a Content-Security-Policy source may be built
/// from, and the operator's templates and branding checked at start.
@Suite struct HostedPagesTests {
    static let redirects = RedirectPolicy(siteURL: "https://app.example.com", allowList: ["myapp://login", "https://app.example.com/**"])
    static let challenge = String(repeating: "c", count: 43)

    @Test(arguments: [
        "https://evil.example/callback", "https://app.example.com.evil.example/", "https://app.example.com@evil.example/",
        "javascript:alert(1)", "https://evil.example\\@app.example.com/", "//evil.example/", "myapp://login.evil", "data:text/html,x",
        "https://app.example.com:444/", "http://app.example.com/",
    ])
    func aReturnAddressOffTheListIsRefused(_ target: String) {
        #expect(throws: PageRefusal.self) {
            try HostedFlow.read(
                ["redirect_to": target, "code_challenge": Self.challenge, "code_challenge_method": "s256"], redirects: Self.redirects)
        }
    }

    @Test func aFlowNeedsAnS256ChallengeAndKeepsTheCanonicalAddress() throws {
        let flow = try HostedFlow.read(
            ["redirect_to": "https://APP.example.com/done?x=1", "code_challenge": Self.challenge, "code_challenge_method": "S256"],
            redirects: Self.redirects)
        #expect(flow.redirectTo == "https://app.example.com/done?x=1" && flow.codeChallengeMethod == "s256")
        let siteOnly = try HostedFlow.read(["code_challenge": Self.challenge, "code_challenge_method": "s256"], redirects: Self.redirects)
        #expect(siteOnly.redirectTo == "https://app.example.com")
        for fields in [
            ["redirect_to": "myapp://login"], ["redirect_to": "myapp://login", "code_challenge": Self.challenge],
            ["redirect_to": "myapp://login", "code_challenge": Self.challenge, "code_challenge_method": "plain"],
            ["redirect_to": "myapp://login", "code_challenge": "short", "code_challenge_method": "s256"],
            ["redirect_to": "myapp://login", "code_challenge": Self.challenge + "<", "code_challenge_method": "s256"],
        ] {
            #expect(throws: PageRefusal.self) { try HostedFlow.read(fields, redirects: Self.redirects) }
        }
        #expect(!flow.hiddenFields(csrf: #""><script>"#).contains("<script>"))
    }

    @Test func aPolicySourceIsAnOriginOrAScheme() {
        #expect(PageRenderer.cspSource("https://App.Example.com:8443/path?q") == "https://app.example.com:8443")
        #expect(PageRenderer.cspSource("myapp://login") == "myapp:")
        #expect(PageRenderer.cspSource("http://localhost:3000/cb") == "http://localhost:3000")
        for hostile in ["https://a.example; script-src *", "https://a.example'unsafe-inline'", "my app://x", "", "https://"] {
            let source = PageRenderer.cspSource(hostile)
            #expect(source == nil || !(source!.contains(";") || source!.contains("'") || source!.contains(" ")), "\(hostile)")
        }
    }

    @Test func anOperatorsTemplatesAreCheckedAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "<p>Welcome back to {{app_name}}</p>{{{flow_fields}}}".write(
            to: folder.appendingPathComponent("sign-in.mustache"), atomically: true, encoding: .utf8)
        let renderer = try PageRenderer.load(directory: folder.path, brand: .init(appName: "Example"))
        let html = renderer.html("sign-in", title: "Sign in", values: ["flow_fields": "<input>"], nonce: "n", script: nil)
        #expect(html.contains("<p>Welcome back to Example</p><input>") && html.contains("<title>Sign in · Example</title>"))
        try "x".write(to: folder.appendingPathComponent("signin.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateError.self) { try PageRenderer.load(directory: folder.path, brand: .init(appName: "Example")) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("signin.mustache"))
        try "{{#open}}".write(to: folder.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateError.self) { try PageRenderer.load(directory: folder.path, brand: .init(appName: "Example")) }
    }

    @Test(arguments: [
        ["LATCHKEY_UI_ACCENT_COLOR": "red"], ["LATCHKEY_UI_ACCENT_COLOR": "#12345g"],
        ["LATCHKEY_UI_BACKGROUND_COLOR": "#fff;}body{display:none"], ["LATCHKEY_UI_LOGO_URL": "http://example.com/logo.png"],
        ["LATCHKEY_UI_LOGO_URL": "javascript:alert(1)"], ["LATCHKEY_ADMIN_CONSOLE_SESSION": "5"],
        ["LATCHKEY_UI_TEMPLATES_DIR": "/nonexistent/latchkey-pages"],
    ])
    func badBrandingRefusesToStart(_ environment: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: environment) }
    }

    @Test func brandingIsRead() throws {
        let pages = try ServerConfiguration.load(environment: [
            "LATCHKEY_APP_NAME": "Example", "LATCHKEY_UI_ACCENT_COLOR": "#AA3300", "LATCHKEY_UI_LOGO_URL": "https://cdn.example.com/l.png",
            "LATCHKEY_ADMIN_CONSOLE": "true",
        ]).pages
        #expect(pages.renderer.brand == .init(appName: "Example", logoURL: "https://cdn.example.com/l.png", accent: "#aa3300"))
        #expect(pages.enabled && pages.adminConsole && pages.adminSession == 900)
        #expect(try ServerConfiguration.load(environment: [:]).pages.adminConsole == false)
    }
}
