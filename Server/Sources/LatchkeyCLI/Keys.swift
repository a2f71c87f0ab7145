import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore

/// `latchkey keys …`: the token signing keys.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The keys that sign and verify access tokens.", subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The published keys and which one signs.")
        @OptionGroup var output: Users.Output

        func run() async throws {
            try await Users.withService(output.data) { service in
                let issuer = service.issuer
                if output.json {
                    let document: [String: JSONValue] = [
                        "algorithm": .string(issuer.algorithm), "signing_kid": issuer.signingKeyID.map(JSONValue.string) ?? .null,
                        "keys": .array(issuer.publicJWKS.map(JSONValue.object)),
                    ]
                    return try Users.printJSON(document)
                }
                print("Tokens are signed with \(issuer.algorithm)\(issuer.signingKeyID.map { " by key \($0)" } ?? "").")
                for key in issuer.publicJWKS {
                    let kid = key["kid"]?.stringValue ?? "-"
                    let signs = kid == issuer.signingKeyID ? "signs and verifies" : "verifies"
                    print("  \(kid)  \(key["kty"]?.stringValue ?? "?") \(key["alg"]?.stringValue ?? "")  \(signs)")
                }
                if issuer.publicJWKS.isEmpty { print("  (no public keys: an HS256 secret signs, GOTRUE_JWT_SECRET)") }
            }
        }
    }
}
