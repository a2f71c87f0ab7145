import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyServer
import NIOCore
import Testing

/// `/.well-known/apple-app-site-association` (issue #36): the apps of `LATCHKEY_APPLE_APP_IDS`
/// may use this domain's passkeys, and `LATCHKEY_APPLE_APP_LINK_PATHS` open them as universal links.
@Suite struct AppleAppSiteTests {
    @Test func servedAsConfiguredAndNotFoundWithoutApps() async throws {
        try await TestServer().run { client, _ async throws in
            let absent = try await client.send(.get, "/.well-known/apple-app-site-association")
            #expect(absent.status == .notFound && absent.errorCode == "not_found")
        }
        let loaded = try ServerConfiguration.load(environment: [
            "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app, ABCDE12345.com.example.app.beta",
            "LATCHKEY_APPLE_APP_LINK_PATHS": "/auth/callback,/auth/*",
        ])
        try await TestServer { $0.appleApps = loaded.appleApps }.run { client, _ async throws in
            let answer = try await client.send(.get, "/.well-known/apple-app-site-association")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.headers[.cacheControl] == "public, max-age=3600")
            let file = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: answer.body).utf8)) as? [String: Any])
            let apps = ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"]
            #expect((file["webcredentials"] as? [String: Any])?["apps"] as? [String] == apps)
            let details = try #require(((file["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first)
            #expect(details["appIDs"] as? [String] == apps)
            #expect((details["components"] as? [[String: String]])?.map { $0["/"] } == ["/auth/callback", "/auth/*"])
        }
        // Passkeys only: no applinks.
        let passkeysOnly = try ServerConfiguration.load(environment: ["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app"])
        let body = String(decoding: try #require(passkeysOnly.appleApps).document, as: UTF8.self)
        #expect(body == #"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"#)
    }

    @Test func malformedAppIDsAndPathsRefuseTheStart() throws {
        for environment in [
            ["LATCHKEY_APPLE_APP_IDS": "com.example.app"],
            ["LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app"],
            ["LATCHKEY_APPLE_APP_IDS": "ABCDE12345."],
            ["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app\",\"x"],
            ["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app", "LATCHKEY_APPLE_APP_LINK_PATHS": "auth/*"],
            ["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app", "LATCHKEY_APPLE_APP_LINK_PATHS": "/auth?x=1"],
            ["LATCHKEY_APPLE_APP_LINK_PATHS": "/auth/*"],
        ] {
            #expect(throws: ConfigurationError.self, "\(environment)") { try ServerConfiguration.load(environment: environment) }
        }
    }
}
