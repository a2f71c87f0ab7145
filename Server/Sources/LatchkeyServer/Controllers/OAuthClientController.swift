import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's OAuth 2.1 server clients (#40): `/admin/oauth/clients` for service-role tokens, and
/// dynamic registration (RFC 7591) at `/oauth/clients/register` for anyone, when allowed.
struct OAuthClientController {
    let clients: OAuthClients

    func register(_ routes: inout RouteRegistrar) {
        routes.asOperator(.get, "/admin/oauth/clients") { _, _ in
            try JSONResponse.make(try await clients.list(), noStore: true)
        }
        routes.asOperator(.post, "/admin/oauth/clients") { request, context in
            try clients.requireEnabled()
            let body = try await request.decodeJSON(OAuthClientRequest.self, context: context)
            return try JSONResponse.make(try await clients.register(body, dynamic: false), status: .created, noStore: true)
        }
        routes.asOperator(.get, "/admin/oauth/clients/:client_id") { _, context in
            try JSONResponse.make(try await clients.get(context.parameters.get("client_id") ?? ""), noStore: true)
        }
        routes.asOperator(.put, "/admin/oauth/clients/:client_id") { request, context in
            try clients.requireEnabled()
            let body = try await request.decodeJSON(OAuthClientRequest.self, context: context)
            return try JSONResponse.make(try await clients.update(context.parameters.get("client_id") ?? "", body), noStore: true)
        }
        routes.asOperator(.delete, "/admin/oauth/clients/:client_id") { _, context in
            try await clients.delete(context.parameters.get("client_id") ?? "")
            return Response(status: .noContent)
        }
        routes.asOperator(.post, "/admin/oauth/clients/:client_id/regenerate_secret") { _, context in
            try JSONResponse.make(try await clients.regenerateSecret(context.parameters.get("client_id") ?? ""), noStore: true)
        }
        routes.on(.post, "/oauth/clients/register") { request, context in
            try clients.requireEnabled()
            let body = try await request.decodeJSON(OAuthClientRequest.self, context: context)
            return try JSONResponse.make(
                try await clients.register(body, dynamic: true, client: context.client), status: .created, noStore: true)
        }
    }
}
