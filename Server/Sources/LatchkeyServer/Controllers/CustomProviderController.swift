import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's `/admin/custom-providers`: custom OpenID providers, for service-role tokens.
struct CustomProviderController {
    let providers: CustomProviders

    func register(_ routes: inout RouteRegistrar) {
        routes.asOperator(.get, "/admin/custom-providers") { _, _ in
            try JSONResponse.make(CustomProviderList(providers: try await providers.list()), noStore: true)
        }
        routes.asOperator(.post, "/admin/custom-providers") { request, context in
            let body = try await request.decodeJSON(CustomProviderRequest.self, context: context)
            return try JSONResponse.make(try await providers.create(body), status: .created, noStore: true)
        }
        routes.asOperator(.get, "/admin/custom-providers/:identifier") { _, context in
            try JSONResponse.make(try await providers.get(Self.identifier(context)), noStore: true)
        }
        routes.asOperator(.put, "/admin/custom-providers/:identifier") { request, context in
            let body = try await request.decodeJSON(CustomProviderRequest.self, context: context)
            return try JSONResponse.make(try await providers.update(Self.identifier(context), body), noStore: true)
        }
        routes.asOperator(.delete, "/admin/custom-providers/:identifier") { _, context in
            try await providers.delete(Self.identifier(context))
            return Response(status: .noContent)
        }
    }

    /// The path's identifier (`custom:acme`, its colon percent-encoded or not).
    static func identifier(_ context: APIRequestContext) -> String {
        let raw = context.parameters.get("identifier") ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
