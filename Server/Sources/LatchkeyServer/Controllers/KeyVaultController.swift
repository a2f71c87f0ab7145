import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's PIN-vault extension: the server's share of a signed-in user's vaults, released
/// for the right PIN verifier and destroyed after ten wrong ones.
struct KeyVaultController {
    /// Who a request is.
    let authenticator: Authenticator
    let vaults: KeyVaults

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/vaults") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(CreateVaultRequest.self, context: context)
            return try JSONResponse.make(try await vaults.create(body, principal: principal), status: .created, noStore: true)
        }
        routes.on(.get, "/vaults") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await vaults.list(principal: principal))
        }
        routes.on(.post, "/vaults/:id/unlock") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(UnlockVaultRequest.self, context: context)
            let vault = try await vaults.unlock(
                id: context.parameters.get("id") ?? "", body, principal: principal, client: context.client)
            return try JSONResponse.make(vault, noStore: true)
        }
        routes.on(.delete, "/vaults/:id") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            try await vaults.delete(id: context.parameters.get("id") ?? "", principal: principal)
            return Response(status: .noContent)
        }
    }
}
