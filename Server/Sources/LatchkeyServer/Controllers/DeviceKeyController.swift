import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's device-key extension: a signed-in user registers, lists and revokes the public keys
/// of its devices. The sign-in itself is a grant of `POST /token` (see ``AuthController``).
struct DeviceKeyController {
    /// Who a request is.
    let authenticator: Authenticator
    let keys: DeviceKeys

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/device-keys") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(RegisterDeviceKeyRequest.self, context: context)
            return try JSONResponse.make(try await keys.register(body, principal: principal), status: .created)
        }
        routes.on(.get, "/device-keys") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await keys.list(principal: principal))
        }
        routes.on(.delete, "/device-keys/:id") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            try await keys.revoke(id: context.parameters.get("id") ?? "", principal: principal)
            return Response(status: .noContent)
        }
    }
}
