import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct MetaTests {
    @Test func healthSaysWhenTheDatabaseDoesNotAnswer() async throws {
        try await TestServer().run { client, app async throws in
            #expect(try await client.send(.get, "/health").status == .ok)
            try await app.store.database.close()
            let answer = try await client.send(.get, "/health")
            #expect(answer.status == .serviceUnavailable)
            #expect(try answer.decode(HealthResponse.self).database == "unavailable")
        }
    }

    @Test func healthSettingsAndJWKS() async throws {
        try await TestServer().run { client, _ async throws in
            let answer = try await client.send(.get, "/health")
            #expect(answer.status == .ok)
            let health = try answer.decode(HealthResponse.self)
            #expect(health.name == "GoTrue")
            #expect(health.database == "ok" && health.status == "ready")
            let settings = try await client.send(.get, "/settings").decode(ServerSettings.self)
            #expect(settings.external["email"] == true)
            #expect(settings.mailerAutoconfirm == false)
            let jwks = try await client.send(.get, "/.well-known/jwks.json")
            #expect(jwks.headers[.cacheControl] == "public, max-age=600")
            let keys = try jwks.decode([String: [[String: JSONValue]]].self)["keys"] ?? []
            #expect(keys.count == 1)
            #expect(keys.first?["kty"] == "EC")
            #expect(keys.first?["d"] == nil)
        }
    }

    @Test func everyRouteIsInTheOpenAPIDocumentAndBack() async throws {
        let server = TestServer()
        try await server.run { client, app async throws in
            let routes = buildRouter(configuration: server.configuration, useCases: app).catalog.routes
            let response = try await client.send(.get, "/openapi.json")
            let document = try JSONDecoder().decode(JSONValue.self, from: Data(response.body.readableBytesView))
            let paths = try #require(document.objectValue?["paths"]?.objectValue)
            var documented = Set<String>()
            for (path, item) in paths {
                for method in (item.objectValue ?? [:]).keys where ["get", "post", "put", "delete", "patch"].contains(method) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            // The hosted pages are HTML for browsers (docs/hosted-pages.md), not the JSON API.
            let served = Set(routes.filter { !$0.path.hasPrefix("/ui/") }.map { "\($0.method) \($0.path)" })
            #expect(served == documented)
            let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../docs/hosted-pages.md")
            let pages = try String(contentsOf: docs, encoding: .utf8)
            let undocumented = routes.filter { $0.path.hasPrefix("/ui/") && !pages.contains("`\($0.method) \($0.path)`") }
            #expect(undocumented.isEmpty, "docs/hosted-pages.md lacks \(undocumented.map { "\($0.method) \($0.path)" })")
        }
    }

    @Test(.enabled(if: !TestServer.usesPostgres, "checks the SQLite file"))
    func sqliteRunsInWALWithFullSync() async throws {
        try await TestServer().run { _, app async throws in
            let database = try #require(app.store.database as? SQLiteDatabase)
            #expect(try await database.pragma("journal_mode") == "wal")
            #expect(try await database.pragma("synchronous") == "2")
            #expect(try await database.pragma("foreign_keys") == "1")
            // The writer's savepoint journals stay in memory instead of spilling to a temporary file.
            #expect(try await database.pragma("temp_store") == "2")
        }
    }

    @Test func hmacSecretSignsWhenConfigured() async throws {
        try await TestServer(configure: { $0.jwtSecret = "a-very-long-shared-secret-for-hs256-tokens" }).run { client, app async throws in
            let session = try await client.signUpConfirmed("hs@example.com", app: app)
            let header = try #require(session.accessToken.split(separator: ".").first)
            let decoded = try #require(Data(base64Encoded: String(header) + String(repeating: "=", count: (4 - header.count % 4) % 4)))
            #expect(String(decoding: decoded, as: UTF8.self).contains("HS256"))
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status == .ok)
        }
    }

    @Test func settingsTableIsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../docs/configuration.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        // Each row is the typed declaration's: its names, its default as read, GoTrue's beside it.
        for setting in Setting.all {
            let names = setting.environment.map { "`\($0)`" }.joined(separator: ", ")
            let shown = "`\(setting.defaultValue)`" + (setting.goTrueDefault.map { " (`gotrue` profile: `\($0)`)" } ?? "")
            #expect(
                text.contains("| \(setting.key) | \(names) | \(shown) | "),
                "docs/configuration.md's row for \(setting.key) is not its declaration's")
        }
        #expect(Set(Setting.all.map(\.key)).count == Setting.all.count, "a key is declared twice")
    }
}
