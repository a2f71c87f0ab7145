import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's embedded-signer extension: the encrypted backup of a user's signing key and the
/// key of automatic recovery.
struct SignerController {
    /// Who a request is.
    let authenticator: Authenticator
    let signer: SignerBackups

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.put, "/signer/backup") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(SignerBackup.self, context: context)
            return try JSONResponse.make(try await signer.put(body, principal: principal), noStore: true)
        }
        routes.on(.get, "/signer/backup") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await signer.get(principal: principal), noStore: true)
        }
        routes.on(.delete, "/signer/backup") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            try await signer.delete(principal: principal)
            return Response(status: .noContent)
        }
        routes.on(.post, "/signer/recovery-key") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await signer.recoveryKey(principal: principal), noStore: true)
        }
    }
}
