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
    let passkeys: Passkeys
    /// GoTrue checks the captcha before it gives sign-in options.
    let captcha: CaptchaGuard

    func register(_ routes: inout RouteRegistrar) {
        routes.signedIn(.post, "/passkeys/registration/options", gate: enabled) { _, context in
            try JSONResponse.make(try await passkeys.registrationOptions(for: context.principal), noStore: true)
        }
        routes.signedIn(.post, "/passkeys/registration/verify", gate: enabled) { request, context in
            let body = try await request.decodeJSON(PasskeyVerifyRequest.self, context: context)
            // GoTrue's `{id, friendly_name, created_at}`, and Latchkey's backup flags.
            return try JSONResponse.make(
                try await passkeys.register(body, principal: context.principal, client: context.client).wire, noStore: true)
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
        routes.signedIn(.get, "/passkeys", gate: enabled) { _, context in
            try JSONResponse.make(try await passkeys.list(context.principal), noStore: true)
        }
        routes.signedIn(.patch, "/passkeys/:id", gate: enabled) { request, context in
            let body = try await request.decodeJSON(PasskeyUpdateRequest.self, context: context)
            return try JSONResponse.make(
                try await passkeys.rename(context.parameters.get("id") ?? "", body, principal: context.principal, client: context.client),
                noStore: true)
        }
        routes.signedIn(.delete, "/passkeys/:id", gate: enabled) { _, context in
            try await passkeys.delete(context.parameters.get("id") ?? "", principal: context.principal, client: context.client)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        routes.asOperator(.get, "/admin/users/:id/passkeys") { _, context in
            try JSONResponse.make(try await passkeys.passkeys(ofUser: context.parameters.get("id") ?? ""), noStore: true)
        }
        routes.asOperator(.delete, "/admin/users/:id/passkeys/:pid") { _, context in
            try await passkeys.delete(passkeyID: context.parameters.get("pid") ?? "", ofUser: context.parameters.get("id") ?? "")
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// Passkeys are on: with them off, every `/passkeys` route answers 404 `passkey_disabled` before it reads the caller.
    var enabled: @Sendable () throws -> Void { { [passkeys] in try passkeys.requireEnabled() } }
}
