import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's PIN-vault extension: the server's share of a signed-in user's vaults, released
/// for the right PIN verifier and destroyed after ten wrong ones.
struct KeyVaultController {
    let vaults: KeyVaults

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.post, "/vaults") { request, context in
            let body = try await request.decodeJSON(CreateVaultRequest.self, context: context)
            return try JSONResponse.make(try await vaults.create(body, principal: context.principal), status: .created, noStore: true)
        }
        routes.signedIn(.get, "/vaults") { _, context in
            try JSONResponse.make(try await vaults.list(principal: context.principal))
        }
        routes.signedIn(.post, "/vaults/:id/unlock") { request, context in
            let body = try await request.decodeJSON(UnlockVaultRequest.self, context: context)
            let vault = try await vaults.unlock(
                id: context.parameters.get("id") ?? "", body, principal: context.principal, client: context.client)
            return try JSONResponse.make(vault, noStore: true)
        }
        routes.signedIn(.delete, "/vaults/:id") { _, context in
            try await vaults.delete(id: context.parameters.get("id") ?? "", principal: context.principal)
            return Response(status: .noContent)
        }
    }
}
