import Foundation
import LatchkeyCore
import Testing

@Suite struct RedirectPolicyTests {
    struct Table: Decodable {
        let site_url: String
        let allow_list: [String]
        let hostile: [String]
        let allowed: [String: String]
    }

    static let table: Table = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../support/redirects.json")
        return try! JSONDecoder().decode(Table.self, from: Data(contentsOf: url))
    }()

    @Test func theHostileTableFallsBackToTheSiteURL() {
        let policy = RedirectPolicy(siteURL: Self.table.site_url, allowList: Self.table.allow_list)
        #expect(Self.table.hostile.count >= 40)
        for input in Self.table.hostile {
            #expect(policy.resolve(input) == Self.table.site_url, "\(input.debugDescription)")
            #expect(!policy.isAllowed(input), "\(input.debugDescription)")
        }
    }

    @Test func allowedRedirectsComeBackRebuiltFromTheirParts() {
        let policy = RedirectPolicy(siteURL: Self.table.site_url, allowList: Self.table.allow_list)
        for (input, canonical) in Self.table.allowed {
            #expect(policy.resolve(input) == canonical, "\(input.debugDescription)")
        }
    }

    @Test func allowList() {
        let policy = RedirectPolicy(siteURL: "http://localhost:3000", allowList: ["myapp://callback", "https://*.example.com/**"])
        #expect(policy.resolve("http://localhost:3000/welcome") == "http://localhost:3000/welcome")
        // Loopback: any port, as GoTrue (RFC 8252 §7.3).
        #expect(policy.resolve("http://localhost:51234/cb") == "http://localhost:51234/cb")
        #expect(policy.resolve("myapp://callback") == "myapp://callback")
        #expect(policy.resolve("myapp://callback/done?x=1") == "myapp://callback/done?x=1")
        #expect(policy.resolve("https://app.example.com/a/b") == "https://app.example.com/a/b")
        #expect(policy.resolve("https://a.b.example.com/") == "http://localhost:3000")
        #expect(policy.resolve("https://evil.com/x") == "http://localhost:3000")
        #expect(policy.resolve("javascript:alert(1)") == "http://localhost:3000")
        #expect(policy.resolve(nil) == "http://localhost:3000")
        #expect(policy.resolve("") == "http://localhost:3000")
        #expect(policy.resolve(String(repeating: "a", count: 5000)) == "http://localhost:3000")
    }

    @Test func wildcardsStayInsideTheirPart() {
        let policy = RedirectPolicy(
            siteURL: "https://app.example.com",
            allowList: ["https://preview-*.vercel.app/**", "https://**.corp.example/*", "com.example.app:/oauth"])
        #expect(policy.isAllowed("https://preview-abc-123.vercel.app/x/y?z=1"))
        #expect(!policy.isAllowed("https://preview-a.b.vercel.app/"))
        #expect(!policy.isAllowed("https://preview-a@b.vercel.app/"))
        #expect(policy.isAllowed("https://a.b.corp.example/one"))
        #expect(!policy.isAllowed("https://a.b.corp.example/one/two"))
        #expect(policy.isAllowed("com.example.app:/oauth"))
        #expect(policy.isAllowed("com.example.app:/oauth/done"))
        #expect(!policy.isAllowed("com.example.app://evil.com/oauth"))
    }

    @Test func locationsAreBuiltFromTheParsedURL() throws {
        let url = try #require(RedirectURL("HTTPS://App.Example.com:443/cb?x=1#old"))
        #expect(url.description == "https://app.example.com/cb?x=1#old")
        #expect(url.replacingFragment("a=1").description == "https://app.example.com/cb?x=1#a=1")
        #expect(url.appendingQuery("code=abc").description == "https://app.example.com/cb?x=1&code=abc")
        #expect(RedirectURL("http://[::1]:8080/x")?.description == "http://[::1]:8080/x")
        #expect(RedirectURL("http://127.0.0.1/")?.host == "127.0.0.1")
        #expect(RedirectURL("http://127.000.0.1/") == nil)
        #expect(RedirectURL("https://host:99999/") == nil)
        #expect(RedirectURL("https://host:/") == nil)
    }
}
