import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's signed-in user: `GET|PUT|DELETE /user` and `/logout`.
struct UserController {
    let userAccount: UserAccount

    func register(_ routes: inout RouteRegistrar) {
        // An OAuth client's token reads the user as far as its scopes open it (#40).
        routes.signedIn(.get, "/user", allowingClients: true) { _, context in
            let user = userAccount.user(for: context.principal)
            guard let session = context.principal.session, session.oauthClientID != nil else { return try JSONResponse.make(user) }
            return try JSONResponse.make(OAuthScopes.scoped(user, scopes: OAuthScopes.parse(session.scopes ?? "")))
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
        // An OAuth client signs out of its own session, whatever scope it asks for.
        routes.signedIn(.post, "/logout", allowingClients: true) { request, context in
            let rawScope = request.queryValue("scope") ?? "global"
            guard var scope = LogoutScope(rawValue: rawScope) else {
                throw AuthError.validation("Unsupported logout scope \"\(rawScope.prefix(32))\"")
            }
            if context.principal.session?.oauthClientID != nil { scope = .local }
            try await userAccount.logout(principal: context.principal, scope: scope)
            return Response(status: .noContent)
        }
    }
}
