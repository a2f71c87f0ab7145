import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's TOTP second factor: enrol, challenge, verify (raising the session to `aal2`) and
/// unenrol.
struct MFAController {
    let mfa: MFA

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.post, "/factors") { request, context in
            let body = try await request.decodeJSON(EnrollFactorRequest.self, context: context)
            return try JSONResponse.make(try await mfa.enroll(body, principal: context.principal), noStore: true)
        }
        routes.signedIn(.post, "/factors/:id/challenge") { _, context in
            // The body (`channel`, `webauthn`) matters for other factor types only.
            let challenge = try await mfa.challenge(
                id: context.parameters.get("id") ?? "", principal: context.principal, client: context.client)
            return try JSONResponse.make(challenge, noStore: true)
        }
        routes.signedIn(.post, "/factors/:id/verify") { request, context in
            let body = try await request.decodeJSON(VerifyFactorRequest.self, context: context)
            let session = try await mfa.verify(
                id: context.parameters.get("id") ?? "", body, principal: context.principal, client: context.client)
            return try JSONResponse.make(session, noStore: true)
        }
        routes.signedIn(.delete, "/factors/:id") { _, context in
            try JSONResponse.make(try await mfa.unenroll(id: context.parameters.get("id") ?? "", principal: context.principal))
        }
    }
}
