import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyCore
import LatchkeyServer
import Testing

/// Issue #35: docs/gotrue-variables.json lists every variable of GoTrue's configuration struct and
/// what Latchkey does with it; the settings catalogue and the table in docs/migrating-from-gotrue.md
/// must say the same.
@Suite struct GoTrueVariablesTests {
    struct Variable: Decodable {
        let name: String
        let `default`: String
        let latchkey: String
        let note: String
    }
    struct Catalogue: Decodable {
        let source: String
        let variables: [Variable]
    }

    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../docs")

    static func catalogue() throws -> Catalogue {
        try JSONDecoder().decode(Catalogue.self, from: Data(contentsOf: docs.appendingPathComponent("gotrue-variables.json")))
    }

    /// GoTrue's unprefixed fallbacks that Latchkey reads (envconfig's `envconfig:"…"` tags).
    static let fallbacks: Set<String> = ["API_EXTERNAL_URL", "DATABASE_URL", "PORT", "DB_NAMESPACE"]

    /// Names Latchkey read before it read GoTrue's source, which GoTrue itself never reads: kept so
    /// that a configuration written for Latchkey with them finds its data where it was.
    static let legacy: Set<String> = ["GOTRUE_DB_NAMESPACE"]

    /// The GoTrue names Latchkey's settings read.
    static var readNames: Set<String> {
        Set(Setting.all.flatMap(\.environment).filter { ($0.hasPrefix("GOTRUE_") || fallbacks.contains($0)) && !legacy.contains($0) })
    }

    /// Whether `name` is `pattern`'s, where `<PROVIDER>` and `<HOOK>` stand for a name.
    static func matches(_ name: String, _ pattern: String) -> Bool {
        guard pattern.contains("<") else { return name == pattern }
        let parts = pattern.components(separatedBy: ["<", ">"])
        guard parts.count == 3 else { return false }
        let middle = name.dropFirst(parts[0].count).dropLast(parts[2].count)
        return name.hasPrefix(parts[0]) && name.hasSuffix(parts[2]) && !middle.isEmpty
            && middle.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }
    }

    @Test func everyNameLatchkeyReadsIsGoTruesAndMarkedRead() throws {
        let variables = try Self.catalogue().variables
        for name in Self.readNames {
            let rows = variables.filter { Self.matches(name, $0.name) }
            #expect(!rows.isEmpty, "\(name) is read but is not one of GoTrue's variables")
            #expect(
                rows.allSatisfy { ["honoured", "differently"].contains($0.latchkey) }, "\(name) is read but marked \(rows.map(\.latchkey))")
        }
    }

    @Test func everyVariableMarkedHonouredIsReadAndEveryIgnoredOneIsNot() throws {
        let read = Self.readNames
        for variable in try Self.catalogue().variables where !variable.name.contains("<") {
            switch variable.latchkey {
            case "honoured", "differently":
                #expect(read.contains(variable.name), "\(variable.name) is marked \(variable.latchkey) but no setting reads it")
            case "ignored", "refused":
                #expect(!read.contains(variable.name), "\(variable.name) is marked \(variable.latchkey) but a setting reads it")
                #expect(!variable.note.isEmpty, "\(variable.name) says no why")
            default:
                Issue.record("\(variable.name): unknown mark \(variable.latchkey)")
            }
            if variable.latchkey == "differently" { #expect(!variable.note.isEmpty, "\(variable.name) says not how") }
        }
    }

    /// A variable marked refused stops the start, naming itself; left at GoTrue's default, it does not.
    @Test func everyVariableMarkedRefusedRefusesToStart() throws {
        let refusing = [
            "GOTRUE_EXTERNAL_EMAIL_ENABLED": "false", "GOTRUE_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED": "false",
            "GOTRUE_EXTERNAL_EMAIL_AUTHORIZED_ADDRESSES": "a@example.com", "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abc:ABC:123",
        ]
        let marked = try Self.catalogue().variables.filter { $0.latchkey == "refused" }.map(\.name)
        #expect(Set(marked) == Set(refusing.keys))
        for (name, value) in refusing {
            #expect {
                try ServerConfiguration.load(environment: [name: value])
            } throws: { ($0 as? ConfigurationError)?.description.contains(name) == true }
        }
        let harmless = [
            "GOTRUE_EXTERNAL_EMAIL_ENABLED": "true", "GOTRUE_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED": "true",
            "GOTRUE_EXTERNAL_EMAIL_AUTHORIZED_ADDRESSES": "", "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "",
        ]
        #expect(throws: Never.self) { try ServerConfiguration.load(environment: harmless) }
    }

    /// The table in docs/migrating-from-gotrue.md is the file's (`scripts/gen-gotrue-table`).
    @Test func theMigrationGuidesTableIsCurrent() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("migrating-from-gotrue.md"), encoding: .utf8)
        let words = ["honoured": "honoured", "differently": "honoured differently", "refused": "refused at start", "ignored": "ignored"]
        let catalogue = try Self.catalogue()
        for variable in catalogue.variables {
            let shownDefault = variable.default.isEmpty ? "" : "`\(variable.default)`"
            let row =
                "| `\(variable.name)` | \(shownDefault) | \(words[variable.latchkey] ?? "?") | \(variable.note.isEmpty ? "as GoTrue" : variable.note) |"
            #expect(text.contains(row), "docs/migrating-from-gotrue.md is stale for \(variable.name): run scripts/gen-gotrue-table")
        }
        let rows = text.components(separatedBy: "\n").filter { $0.hasPrefix("| `GOTRUE_") || $0.hasPrefix("| `API_") }
        #expect(rows.count <= catalogue.variables.count)
    }
}

/// GoTrue's switches for what Latchkey lacks, its `N/duration` rates and its wallet grant.
@Suite struct GoTrueFeatureTests {
    @Test func missingFeaturesTurnedOnStartWithAWarningEach() throws {
        let loaded = try ServerConfiguration.load(environment: [
            "GOTRUE_SAML_ENABLED": "true", "GOTRUE_EXTERNAL_FACEBOOK_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "false",
            "GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED": "true", "GOTRUE_EXTERNAL_EMAIL_ENABLED": "true", "GOTRUE_OAUTH_SERVER_ENABLED": "false",
        ])
        // Wallet sign-in (#41) and the OAuth server (#40) are built: no warning for them.
        #expect(loaded.warnings.count == 2, "\(loaded.warnings)")
        #expect(loaded.warnings.contains { $0.hasPrefix("GOTRUE_SAML_ENABLED=true: SAML") })
        #expect(loaded.warnings.contains { $0.hasPrefix("GOTRUE_EXTERNAL_FACEBOOK_ENABLED=true: facebook sign-in is not built") })
        #expect(loaded.auth.web3.solana && !loaded.auth.web3.ethereum)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(environment: ["GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED": "yes please"])
        }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(environment: ["GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION": "forever"])
        }
    }

    @Test func goTruesRateFormsPortAndPasswordCheckAreRead() throws {
        let loaded = try ServerConfiguration.load(environment: [
            "GOTRUE_RATE_LIMIT_EMAIL_SENT": "100/30m", "GOTRUE_RATE_LIMIT_SMS_SENT": "12", "GOTRUE_API_PORT": "8081",
            "GOTRUE_PASSWORD_HIBP_ENABLED": "true",
        ])
        #expect(loaded.auth.rateLimits.emailSent == RateLimit(count: 100, period: 1800))
        #expect(loaded.auth.rateLimits.smsSent == RateLimit(count: 12, period: 3600))
        #expect(loaded.port == 8081)
        // GoTrue's HaveIBeenPwned check becomes the common-password list, also under its profile.
        #expect(loaded.profile == .gotrue && loaded.auth.password.blockCommon)
        for bad in ["100/", "/1h", "a/1h", "100/1d", "100/0s"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.load(environment: ["GOTRUE_RATE_LIMIT_EMAIL_SENT": bad])
            }
        }
    }

    /// Until wallet sign-in is built, `grant_type=web3` answers as GoTrue does with both chains off.
    @Test func aWalletGrantIsGoTruesDisabledProvider() async throws {
        try await TestServer().run { client, _ async throws in
            let answer = try await client.send(
                .post, "/token?grant_type=web3", json: #"{"chain":"ethereum","message":"m","signature":"0x"}"#)
            #expect(answer.status == .unprocessableContent)
            let body = try answer.decode([String: String].self)
            #expect(body["code"] == "web3_provider_disabled" && body["message"] == "Web3 provider is disabled")
        }
    }
}
