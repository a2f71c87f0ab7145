import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

/// `latchkey webhooks …`: the webhook endpoints and their deliveries, as `/admin/webhooks`.
struct Webhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Webhook endpoints and their deliveries: list, add, remove, replay (works with the server stopped).",
        subcommands: [List.self, Add.self, Remove.self, Replay.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The endpoints, and their newest deliveries.")
        @OptionGroup var output: Users.Output
        @Option(help: "Only deliveries in this state: pending, delivered or failed.") var state: String?
        @Option(help: "Deliveries shown.") var limit = 20

        func run() async throws {
            var filter: WebhookDelivery.State?
            if let state {
                guard let parsed = WebhookDelivery.State(rawValue: state) else {
                    throw ValidationError("--state must be pending, delivered or failed")
                }
                filter = parsed
            }
            try await Users.withUseCases(output.data) { useCases in
                let endpoints = try await useCases.admin.webhooks.list()
                let deliveries = try await useCases.admin.webhooks.deliveries(endpointID: nil, state: filter, limit: limit)
                if output.json {
                    return try Users.printJSON(
                        Listing(webhooks: endpoints.map { WebhookEndpointBody($0) }, deliveries: deliveries.map { WebhookDeliveryBody($0) })
                    )
                }
                if endpoints.isEmpty { print("No webhook endpoints.") }
                for endpoint in endpoints {
                    let events = endpoint.events.isEmpty ? "all events" : endpoint.events.map(\.rawValue).joined(separator: ",")
                    print("  \(endpoint.id.lowercasedString)  \(endpoint.source.rawValue)  \(endpoint.url)  \(events)")
                }
                if !deliveries.isEmpty { print("Deliveries, newest first:") }
                for delivery in deliveries {
                    let error = delivery.lastError.map { "  \($0.prefix(120))" } ?? ""
                    print(
                        "  \(delivery.id.lowercasedString)  \(delivery.state.rawValue)  \(delivery.type)  attempts \(delivery.attempts)\(error)"
                    )
                }
            }
        }

        struct Listing: Encodable {
            var webhooks: [WebhookEndpointBody]
            var deliveries: [WebhookDeliveryBody]
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an endpoint; prints its signing secret once.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The endpoint's URL (https://, or http:// to this machine).") var url: String
        @Option(help: "An event type it gets (repeat for more; default all).") var event: [String] = []
        @Option(help: "Its secret (v1,whsec_<base64>); default a new one.") var secret: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let added = try await useCases.admin.webhooks.add(url: url, secret: secret, events: event)
                if output.json { return try Users.printJSON(WebhookEndpointBody(added.endpoint, secret: added.secret)) }
                print("Added \(added.endpoint.id.lowercasedString) for \(url).")
                print("Its signing secret (shown once): \(added.secret)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint; its pending deliveries are given up.")
        @OptionGroup var output: Users.Output
        @Argument(help: "The endpoint's id.") var id: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                try await useCases.admin.webhooks.remove(id: id)
                if !output.json { print("Removed \(id).") }
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue deliveries again (same webhook-id): the ones named, or every failed one.")
        @OptionGroup var output: Users.Output
        @Argument(help: "Delivery ids.") var ids: [String] = []
        @Flag(help: "Every failed delivery.") var failed = false
        @Option(help: "With --failed: only this endpoint's.") var endpoint: String?

        func validate() throws {
            if ids.isEmpty == !failed { throw ValidationError("name delivery ids, or give --failed") }
        }

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let replayed =
                    failed
                    ? try await useCases.admin.webhooks.replayFailed(endpointID: endpoint)
                    : try await useCases.admin.webhooks.replay(ids: ids)
                if output.json { return try Users.printJSON(["replayed": replayed.map { $0.lowercasedString }]) }
                print("Queued \(replayed.count) deliver\(replayed.count == 1 ? "y" : "ies") again.")
            }
        }
    }
}
