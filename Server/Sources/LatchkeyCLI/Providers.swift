import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

/// `latchkey providers …`: custom OpenID providers (`custom:<name>`), as the admin API's
/// `/admin/custom-providers`.
struct Providers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Custom OpenID providers (custom:<name>): add, list, remove (works with the server stopped).",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an OpenID provider found through its issuer's discovery document.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The identifier apps send as provider: custom:<name>.") var identifier: String
        @Option(help: "A display name.") var name: String?
        @Option(help: "The issuer (HTTPS; HTTP only on a loopback address).") var issuer: String
        @Option(name: .customLong("client-id"), help: "The client id.") var clientID: String
        @Option(
            name: .customLong("client-secret"),
            help: "The client secret (or set LATCHKEY_PROVIDER_CLIENT_SECRET, which keeps it out of the shell history).")
        var clientSecret: String?
        @Option(name: .customLong("also-accept"), help: "Another accepted audience (repeat for more).") var alsoAccept: [String] = []
        @Option(help: "A scope to ask for (repeat for more; default openid email profile).") var scope: [String] = []
        @Flag(help: "Accept id tokens without a nonce.") var skipNonceCheck = false
        @Flag(help: "Sign in identities without an address.") var emailOptional = false

        func run() async throws {
            let secret = clientSecret ?? ProcessInfo.processInfo.environment["LATCHKEY_PROVIDER_CLIENT_SECRET"]
            try await Users.withUseCases(output.data) { useCases in
                let provider = try await useCases.admin.customProviders.create(
                    CustomProviderRequest(
                        identifier: identifier, name: name ?? identifier, clientID: clientID, clientSecret: secret,
                        acceptableClientIDs: alsoAccept, scopes: scope.isEmpty ? nil : scope, emailOptional: emailOptional,
                        issuer: issuer, skipNonceCheck: skipNonceCheck))
                if output.json { return try Users.printJSON(provider) }
                print("Added \(provider.identifier) (\(provider.issuer)).")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The custom providers.")
        @OptionGroup var output: Users.Output

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let providers = try await useCases.admin.customProviders.list()
                if output.json { return try Users.printJSON(CustomProviderList(providers: providers)) }
                if providers.isEmpty { print("No custom providers.") }
                for provider in providers {
                    print("  \(provider.identifier)  \(provider.enabled ? "on " : "off")  \(provider.issuer)  client \(provider.clientID)")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a custom provider (its users keep their other identities).")
        @OptionGroup var output: Users.Output
        @Argument(help: "custom:<name>") var identifier: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                try await useCases.admin.customProviders.delete(identifier)
                if !output.json { print("Removed \(identifier).") }
            }
        }
    }
}
