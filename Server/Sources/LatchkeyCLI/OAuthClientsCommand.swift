import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

/// `latchkey oauth-clients …`: the OAuth 2.1 server's clients, as the admin API's
/// `/admin/oauth/clients` (with `GOTRUE_OAUTH_SERVER_ENABLED` on, as there).
struct OAuthClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth-clients",
        abstract: "The OAuth server's clients: add, list, rotate-secret, remove (works with the server stopped).",
        subcommands: [Add.self, List.self, RotateSecret.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a client; a confidential one's secret is printed this once.")
        @OptionGroup var output: Users.Output
        @Option(name: .customLong("redirect-uri"), help: "Where codes may go, matched exactly (repeat for more).") var redirectURIs:
            [String]
        @Option(help: "A display name.") var name: String?
        @Flag(name: .customLong("public"), help: "A public client (PKCE alone, no secret): a mobile, desktop or browser app.")
        var isPublic = false
        @Option(name: .customLong("client-uri"), help: "The client's home page.") var clientURI: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let client = try await useCases.admin.oauthClients.register(
                    OAuthClientRequest(
                        redirectURIs: redirectURIs, clientType: isPublic ? "public" : "confidential", clientName: name, clientURI: clientURI
                    ),
                    dynamic: false)
                if output.json { return try Users.printJSON(client) }
                print("Added \(client.clientID.lowercasedString) (\(client.clientType)).")
                if let secret = client.clientSecret { print("Client secret (shown this once): \(secret)") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The clients, newest first.")
        @OptionGroup var output: Users.Output

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let list = try await useCases.admin.oauthClients.list()
                if output.json { return try Users.printJSON(list) }
                if list.clients.isEmpty { print("No OAuth clients.") }
                for client in list.clients {
                    print(
                        "  \(client.clientID.lowercasedString)  \(client.clientType)  \(client.clientName ?? "-")  \(client.redirectURIs.joined(separator: " "))"
                    )
                }
            }
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret", abstract: "A new secret for a confidential client; the old one stops working.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The client id.") var clientID: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let client = try await useCases.admin.oauthClients.regenerateSecret(clientID)
                if output.json { return try Users.printJSON(client) }
                print("Client secret (shown this once): \(client.clientSecret ?? "")")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a client.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The client id.") var clientID: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                try await useCases.admin.oauthClients.delete(clientID)
                if !output.json { print("Removed \(clientID).") }
            }
        }
    }
}
