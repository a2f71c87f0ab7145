import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's embedded-signer extension: the encrypted backup of a user's signing key and the
/// key of automatic recovery.
struct SignerController {
    let signer: SignerBackups

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.put, "/signer/backup") { request, context in
            let body = try await request.decodeJSON(SignerBackup.self, context: context)
            return try JSONResponse.make(try await signer.put(body, principal: context.principal), noStore: true)
        }
        routes.signedIn(.get, "/signer/backup") { _, context in
            try JSONResponse.make(try await signer.get(principal: context.principal), noStore: true)
        }
        routes.signedIn(.delete, "/signer/backup") { _, context in
            try await signer.delete(principal: context.principal)
            return Response(status: .noContent)
        }
        routes.signedIn(.post, "/signer/recovery-key") { _, context in
            try JSONResponse.make(try await signer.recoveryKey(principal: context.principal), noStore: true)
        }
    }
}
