import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's device-key extension: a signed-in user registers, lists and revokes the public keys
/// of its devices. The sign-in itself is a grant of `POST /token` (see ``AuthController``).
struct DeviceKeyController {
    let keys: DeviceKeys

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.post, "/device-keys") { request, context in
            let body = try await request.decodeJSON(RegisterDeviceKeyRequest.self, context: context)
            return try JSONResponse.make(try await keys.register(body, principal: context.principal), status: .created)
        }
        routes.signedIn(.get, "/device-keys") { _, context in
            try JSONResponse.make(try await keys.list(principal: context.principal))
        }
        routes.signedIn(.delete, "/device-keys/:id") { _, context in
            try await keys.revoke(id: context.parameters.get("id") ?? "", principal: context.principal)
            return Response(status: .noContent)
        }
    }
}
