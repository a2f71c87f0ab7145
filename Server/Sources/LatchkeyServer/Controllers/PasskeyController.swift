import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's passkeys: `/passkeys/registration/*` and `/passkeys/authentication/*` (the
/// ceremonies), `/passkeys` and `/passkeys/{id}` (the user's own), and the operator's
/// `/admin/users/{id}/passkeys…`. With passkeys off every `/passkeys` route answers 404
/// `passkey_disabled` before it reads the caller; the admin routes answer regardless, as GoTrue's.
struct PasskeyController {
    let authenticator: Authenticator
    let passkeys: Passkeys
    /// GoTrue checks the captcha before it gives sign-in options.
    let captcha: CaptchaGuard

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/passkeys/registration/options") { request, _ in
            let principal = try await signedIn(request)
            return try JSONResponse.make(try await passkeys.registrationOptions(for: principal), noStore: true)
        }
        routes.on(.post, "/passkeys/registration/verify") { request, context in
            let principal = try await signedIn(request)
            let body = try await request.decodeJSON(PasskeyVerifyRequest.self, context: context)
            // GoTrue's `{id, friendly_name, created_at}`, and Latchkey's backup flags.
            return try JSONResponse.make(
                try await passkeys.register(body, principal: principal, client: context.client).wire, noStore: true)
        }
        routes.on(.post, "/passkeys/authentication/options") { request, context in
            try passkeys.requireEnabled()
            try await captcha.check(request, context: context)
            return try JSONResponse.make(try await passkeys.authenticationOptions(client: context.client), noStore: true)
        }
        routes.on(.post, "/passkeys/authentication/verify") { request, context in
            try passkeys.requireEnabled()
            let body = try await request.decodeJSON(PasskeyVerifyRequest.self, context: context)
            return try JSONResponse.make(try await passkeys.signIn(body, client: context.client), noStore: true)
        }
        routes.on(.get, "/passkeys") { request, _ in
            let principal = try await signedIn(request)
            return try JSONResponse.make(try await passkeys.list(principal), noStore: true)
        }
        routes.on(.patch, "/passkeys/:id") { request, context in
            let principal = try await signedIn(request)
            let body = try await request.decodeJSON(PasskeyUpdateRequest.self, context: context)
            return try JSONResponse.make(
                try await passkeys.rename(context.parameters.get("id") ?? "", body, principal: principal, client: context.client),
                noStore: true)
        }
        routes.on(.delete, "/passkeys/:id") { request, context in
            let principal = try await signedIn(request)
            try await passkeys.delete(context.parameters.get("id") ?? "", principal: principal, client: context.client)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        routes.on(.get, "/admin/users/:id/passkeys") { request, context in
            try await authenticator.asOperator(request) {
                try JSONResponse.make(try await passkeys.passkeys(ofUser: context.parameters.get("id") ?? ""), noStore: true)
            }
        }
        routes.on(.delete, "/admin/users/:id/passkeys/:pid") { request, context in
            try await authenticator.asOperator(request) {
                try await passkeys.delete(passkeyID: context.parameters.get("pid") ?? "", ofUser: context.parameters.get("id") ?? "")
                return Response(status: .noContent, headers: [.cacheControl: "no-store"])
            }
        }
    }

    /// The caller, once passkeys are known to be on.
    func signedIn(_ request: Request) async throws -> Principal {
        try passkeys.requireEnabled()
        return try await authenticator.authenticate(authorization: request.headers[.authorization])
    }
}
