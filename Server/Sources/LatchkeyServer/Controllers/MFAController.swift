import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's TOTP second factor: enrol, challenge, verify (raising the session to `aal2`) and
/// unenrol.
struct MFAController {
    /// Who a request is.
    let authenticator: Authenticator
    let mfa: MFA

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/factors") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(EnrollFactorRequest.self, context: context)
            return try JSONResponse.make(try await mfa.enroll(body, principal: principal), noStore: true)
        }
        routes.on(.post, "/factors/:id/challenge") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            // The body (`channel`, `webauthn`) matters for other factor types only.
            let challenge = try await mfa.challenge(
                id: context.parameters.get("id") ?? "", principal: principal, client: context.client)
            return try JSONResponse.make(challenge, noStore: true)
        }
        routes.on(.post, "/factors/:id/verify") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(VerifyFactorRequest.self, context: context)
            let session = try await mfa.verify(
                id: context.parameters.get("id") ?? "", body, principal: principal, client: context.client)
            return try JSONResponse.make(session, noStore: true)
        }
        routes.on(.delete, "/factors/:id") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await mfa.unenroll(id: context.parameters.get("id") ?? "", principal: principal))
        }
    }
}
