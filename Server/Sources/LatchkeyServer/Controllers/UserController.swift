import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's signed-in user: `GET|PUT|DELETE /user` and `/logout`.
struct UserController {
    let userAccount: UserAccount

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.get, "/user") { _, context in
            try JSONResponse.make(userAccount.user(for: context.principal))
        }
        routes.signedIn(.put, "/user") { request, context in
            let body = try await request.decodeJSON(UpdateUserRequest.self, context: context)
            return try JSONResponse.make(
                try await userAccount.update(
                    body, principal: context.principal, client: context.client, redirectTo: request.queryValue("redirect_to")))
        }
        routes.signedIn(.delete, "/user") { request, context in
            let body = try await request.decodeJSON(DeleteAccountRequest.self, context: context, allowingEmpty: true)
            try await userAccount.deleteAccount(principal: context.principal, nonce: body.nonce)
            return Response(status: .noContent)
        }
        routes.signedIn(.post, "/logout") { request, context in
            let rawScope = request.queryValue("scope") ?? "global"
            guard let scope = LogoutScope(rawValue: rawScope) else {
                throw AuthError.validation("Unsupported logout scope \"\(rawScope.prefix(32))\"")
            }
            try await userAccount.logout(principal: context.principal, scope: scope)
            return Response(status: .noContent)
        }
    }
}
