import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

/// `latchkey keys …`: the token signing keys.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The keys that sign and verify access tokens: list, rotate, import, retire; service-role tokens (works with the server stopped).",
        subcommands: [List.self, Rotate.self, Import.self, Retire.self, ServiceToken.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The published keys, which one signs, and what is scheduled.")
        @OptionGroup var output: Users.Output

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let issuer = useCases.issuer
                let schedule = issuer.schedule
                if output.json {
                    let stored: [JSONValue] = schedule.map { entry in
                        .object([
                            "kid": .string(entry.kid), "signs_from": .string(WireJSON.formatDate(entry.signsFrom)),
                            "signs": .bool(entry.signs),
                            "verifies_until": entry.verifiesUntil.map { .string(WireJSON.formatDate($0)) } ?? .null,
                        ])
                    }
                    let document: [String: JSONValue] = [
                        "algorithm": .string(issuer.algorithm), "signing_kid": issuer.signingKeyID.map(JSONValue.string) ?? .null,
                        "keys": .array(issuer.publicJWKS.map(JSONValue.object)), "schedule": .array(stored),
                    ]
                    return try Users.printJSON(document)
                }
                print("Tokens are signed with \(issuer.algorithm)\(issuer.signingKeyID.map { " by key \($0)" } ?? "").")
                if !issuer.usesStoredKeys {
                    for key in issuer.publicJWKS {
                        let kid = key["kid"]?.stringValue ?? "-"
                        let signs = kid == issuer.signingKeyID ? "signs and verifies" : "verifies"
                        print("  \(kid)  \(key["kty"]?.stringValue ?? "?") \(key["alg"]?.stringValue ?? "")  \(signs)")
                    }
                    if issuer.publicJWKS.isEmpty { print("  (no public keys: an HS256 secret signs, GOTRUE_JWT_SECRET)") }
                    return
                }
                let now = Date()
                for entry in schedule {
                    let state =
                        entry.signs
                        ? "signs and verifies" + (entry.verifiesUntil.map { " (replaced; verifies until \(Keys.date($0)))" } ?? "")
                        : entry.signsFrom > now
                            ? "published; signs from \(Keys.date(entry.signsFrom))"
                            : "verifies until \(entry.verifiesUntil.map(Keys.date) ?? "-")"
                    print("  \(entry.kid)  EC ES256  \(state)")
                }
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new signing key: published at once, signing after --delay; the current key verifies until its tokens expire.")
        @OptionGroup var output: Users.Output
        @Option(help: "How long clients have to fetch the new key before it signs: 15m, 1h, 0s.") var delay = "15m"

        func run() async throws {
            let seconds = try Keys.duration(delay, option: "--delay")
            try await Users.withUseCases(output.data) { useCases in
                let key = try await useCases.admin.signingKeys.rotate(after: seconds)
                try Keys.report(key, verb: "Rotated", json: output.json)
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import your own EC P-256 private key (PEM) to sign tokens, scheduled like a rotation.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The PEM file (BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY).") var file: String
        @Option(help: "How long clients have to fetch the new key before it signs: 15m, 1h, 0s.") var delay = "15m"

        func run() async throws {
            let seconds = try Keys.duration(delay, option: "--delay")
            guard let data = FileManager.default.contents(atPath: file), data.count < 64 * 1024 else {
                throw ValidationError("Cannot read \(file)")
            }
            try await Users.withUseCases(output.data) { useCases in
                let key = try await useCases.admin.signingKeys.importKey(pem: String(decoding: data, as: UTF8.self), after: seconds)
                try Keys.report(key, verb: "Imported", json: output.json)
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a key that no longer signs, at once: every token it signed stops verifying (after a key leak).",
            discussion:
                "After a leak: `latchkey keys rotate --delay 0s`, then `latchkey keys retire <leaked kid>`. Sessions go on: refresh tokens are not signed by the key."
        )
        @OptionGroup var output: Users.Output
        @Argument(help: "The key id (kid), as `latchkey keys list` shows it.") var kid: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                try await useCases.admin.signingKeys.retire(kid: kid)
                if output.json { return try Users.printJSON(["retired": kid]) }
                print("Retired key \(kid): tokens it signed no longer verify.")
                print("A running server drops it within its keys-reload-interval (30 s by default).")
            }
        }
    }

    struct ServiceToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service-token",
            abstract: "Print a service-role token for the admin API (Supabase's service_role key); keep it secret.",
            discussion: "It is signed by the key that signs now and verifies as long as that key does: mint a new one after a rotation.")
        @OptionGroup var output: Users.Output
        @Option(help: "The admin role it carries (one of GOTRUE_JWT_ADMIN_ROLES).") var role = "service_role"
        @Option(name: .customLong("expires-in"), help: "Lifetime as a Go duration (1h, 720h) or none.") var expiresIn = "8760h"

        func run() async throws {
            let lifetime: TimeInterval? = expiresIn == "none" ? nil : try Keys.duration(expiresIn, option: "--expires-in")
            try await Users.withUseCases(output.data) { useCases in
                let (token, expiresAt) = try await useCases.admin.signingKeys.serviceToken(role: role, lifetime: lifetime)
                if output.json {
                    return try Users.printJSON([
                        "token": JSONValue.string(token), "role": .string(role),
                        "expires_at": expiresAt.map { .string(WireJSON.formatDate($0)) } ?? .null,
                    ])
                }
                print(token)
            }
        }
    }

    static func duration(_ text: String, option: String) throws -> TimeInterval {
        guard let seconds = GoDuration.seconds(text), seconds >= 0 else {
            throw ValidationError("\(option) must be a duration such as 15m, 1h or 720h")
        }
        return seconds
    }

    static func date(_ date: Date) -> String { String(WireJSON.formatDate(date).prefix(19)) + "Z" }

    static func report(_ key: SigningKeyRecord, verb: String, json: Bool) throws {
        if json {
            return try Users.printJSON([
                "kid": JSONValue.string(key.kid), "signs_from": .string(WireJSON.formatDate(key.signsFrom)),
                "public_jwk": .object(key.publicJWK),
            ])
        }
        print("\(verb) key \(key.kid): stored now, signs from \(date(key.signsFrom)).")
        print("A running server publishes it within its keys-reload-interval (30 s by default); the key that signs")
        print("now keeps verifying until the tokens it signed have expired.")
        if key.signsFrom.timeIntervalSince(key.createdAt) < 600 {
            print("Note: JWKS responses may be cached for 10 minutes; until then some verifiers may not know the new key.")
        }
    }
}
