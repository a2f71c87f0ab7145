import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's manual linking: `GET /user/identities/authorize` and `DELETE /user/identities/{id}`.
struct IdentityController {
    let links: IdentityLinks

    /// `{"url": …}`, what `skip_http_redirect=true` answers.
    struct LinkURL: Encodable {
        var url: String
    }

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.get, "/user/identities/authorize") { request, context in
            let url = try await links.authorize(
                provider: request.queryValue("provider"), redirectTo: request.queryValue("redirect_to"),
                scopes: request.queryValue("scopes"), principal: context.principal)
            if request.queryValue("skip_http_redirect") == "true" { return try JSONResponse.make(LinkURL(url: url)) }
            return Response(status: .found, headers: [.location: url, .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
        }
        routes.signedIn(.delete, "/user/identities/:id") { _, context in
            try await links.unlink(context.parameters.get("id") ?? "", principal: context.principal, client: context.client)
            return try JSONResponse.make([String: String]())
        }
    }
}
