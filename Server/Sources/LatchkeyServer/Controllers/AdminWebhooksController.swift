import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// `/admin/webhooks…` (Latchkey's extension, for service-role tokens): the webhook endpoints,
/// their deliveries, and replays.
struct AdminWebhooksController {
    let webhooks: WebhookEndpoints

    func register(_ routes: inout RouteRegistrar) {
        routes.asOperator(.get, "/admin/webhooks") { _, _ in
            let endpoints = try await webhooks.list().map { WebhookEndpointBody($0) }
            return try JSONResponse.make(["webhooks": endpoints], noStore: true)
        }
        routes.asOperator(.post, "/admin/webhooks") { request, context in
            let body = try await request.decodeJSON(WebhookEndpointRequest.self, context: context)
            guard let url = body.url else { throw AuthError.validation("url is required") }
            let added = try await webhooks.add(url: url, secret: body.secret, events: body.events ?? [])
            return try JSONResponse.make(WebhookEndpointBody(added.endpoint, secret: added.secret), status: .created, noStore: true)
        }
        routes.asOperator(.delete, "/admin/webhooks/:id") { _, context in
            try await webhooks.remove(id: context.parameters.get("id") ?? "")
            return try JSONResponse.make([String: String](), noStore: true)
        }
        routes.asOperator(.get, "/admin/webhooks/:id/deliveries") { request, context in
            var state: WebhookDelivery.State?
            if let raw = request.uri.queryParameters.get("state") {
                guard let parsed = WebhookDelivery.State(rawValue: raw) else {
                    throw AuthError.validation("state must be pending, delivered or failed")
                }
                state = parsed
            }
            let limit = try AdminController.positive(
                request.uri.queryParameters.get("limit"), name: "limit", default: 100, max: 1000)
            let deliveries = try await webhooks.deliveries(endpointID: context.parameters.get("id") ?? "", state: state, limit: limit)
            return try JSONResponse.make(["deliveries": deliveries.map { WebhookDeliveryBody($0) }], noStore: true)
        }
        routes.asOperator(.post, "/admin/webhooks/replay") { request, context in
            let body = try await request.decodeJSON(WebhookReplayRequest.self, context: context)
            if let ids = body.ids, !(1...1000).contains(ids.count) {
                throw AuthError.validation("ids must hold 1 to 1000 delivery ids")
            }
            if body.failed == false { throw AuthError.validation("failed may only be true") }
            guard body.ids != nil || body.failed == true else { throw AuthError.validation("give ids or failed: true") }
            var replayed = try await webhooks.replay(ids: body.ids ?? [])
            if body.failed == true { replayed += try await webhooks.replayFailed(endpointID: body.endpointID) }
            return try JSONResponse.make(["replayed": replayed.map { $0.lowercasedString }], noStore: true)
        }
    }
}
