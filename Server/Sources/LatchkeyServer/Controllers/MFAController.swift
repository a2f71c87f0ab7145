import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's second factors, TOTP, phone and WebAuthn: enrol, challenge, verify (raising the
/// session to `aal2`) and unenrol; Latchkey's recovery codes.
struct MFAController {
    let mfa: MFA

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.post, "/factors") { request, context in
            let body = try await request.decodeJSON(EnrollFactorRequest.self, context: context)
            switch body.factorType {
            case "phone": return try JSONResponse.make(try await mfa.enrollPhone(body, principal: context.principal), noStore: true)
            case "webauthn": return try JSONResponse.make(try await mfa.enrollWebAuthn(body, principal: context.principal), noStore: true)
            default: break
            }
            return try JSONResponse.make(try await mfa.enroll(body, principal: context.principal), noStore: true)
        }
        routes.signedIn(.post, "/factors/:id/challenge") { request, context in
            // `channel` matters to phone factors only (`webauthn`'s `rpId` to none); no body is GoTrue's empty one.
            let body = try await request.decodeJSON(ChallengeFactorRequest.self, context: context, allowingEmpty: true)
            let challenge = try await mfa.challenge(
                id: context.parameters.get("id") ?? "", body, principal: context.principal, client: context.client)
            return try JSONResponse.make(challenge, noStore: true)
        }
        routes.signedIn(.post, "/factors/:id/verify") { request, context in
            let body = try await request.decodeJSON(VerifyFactorRequest.self, context: context)
            let session = try await mfa.verify(
                id: context.parameters.get("id") ?? "", body, principal: context.principal, client: context.client)
            return try JSONResponse.make(session, noStore: true)
        }
        // Latchkey's recovery codes: made at aal2, each good once in place of a factor's code.
        routes.signedIn(.post, "/recovery-codes") { _, context in
            try JSONResponse.make(try await mfa.generateRecoveryCodes(principal: context.principal), noStore: true)
        }
        routes.signedIn(.get, "/recovery-codes") { _, context in
            try JSONResponse.make(try await mfa.recoveryCodeStatus(principal: context.principal), noStore: true)
        }
        routes.signedIn(.post, "/recovery-codes/verify") { request, context in
            let body = try await request.decodeJSON(VerifyRecoveryCodeRequest.self, context: context)
            let session = try await mfa.verifyRecoveryCode(body, principal: context.principal, client: context.client)
            return try JSONResponse.make(session, noStore: true)
        }
        routes.signedIn(.delete, "/factors/:id") { _, context in
            try JSONResponse.make(try await mfa.unenroll(id: context.parameters.get("id") ?? "", principal: context.principal))
        }
    }
}
