import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's manual linking: `GET /user/identities/authorize` and `DELETE /user/identities/{id}`.
struct IdentityController {
    let authenticator: Authenticator
    let links: IdentityLinks

    /// `{"url": …}`, what `skip_http_redirect=true` answers.
    struct LinkURL: Encodable {
        var url: String
    }

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/user/identities/authorize") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let url = try await links.authorize(
                provider: request.queryValue("provider"), redirectTo: request.queryValue("redirect_to"),
                scopes: request.queryValue("scopes"), principal: principal)
            if request.queryValue("skip_http_redirect") == "true" { return try JSONResponse.make(LinkURL(url: url)) }
            return Response(status: .found, headers: [.location: url, .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
        }
        routes.on(.delete, "/user/identities/:id") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            try await links.unlink(context.parameters.get("id") ?? "", principal: principal, client: context.client)
            return try JSONResponse.make([String: String]())
        }
    }
}
