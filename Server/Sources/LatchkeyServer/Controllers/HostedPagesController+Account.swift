import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// A forgotten password, an email change's code, and the page after sign-in that offers a
/// passkey and hands the session to the app.
extension HostedPagesController {
    func registerAccount(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/ui/reset") { request, context in
            try await post(request, context) { form in
                do {
                    try await checkCaptcha(form, context)
                    _ = try await useCases.codes.recover(
                        email: form.email, challenge: (nil, nil), redirectTo: form.flow.redirectTo, client: context.client)
                } catch let error as AuthError {
                    return show("reset", form, error: error)
                }
                return show("reset-code", form)
            }
        }
        routes.on(.post, "/ui/reset-code") { request, context in
            try await post(request, context) { form in
                let password = form.fields["password"] ?? ""
                do {
                    // The new password is judged before the code is spent on it.
                    if let weak = useCases.passwordPolicy.check(password) { throw weak }
                    let outcome = try await useCases.verification.verify(
                        VerifyRequest(type: "recovery", email: form.email, token: form.code), client: context.client)
                    guard case .session(let session, _) = outcome else { throw AuthError.otpInvalid }
                    let principal = try await useCases.sessions.authenticator.authenticate(authorization: "Bearer \(session.accessToken)")
                    _ = try await useCases.userAccount.update(
                        UpdateUserRequest(password: password), principal: principal, client: context.client)
                    return try await finish(session, method: "recovery", flow: form.flow)
                } catch let error as AuthError {
                    return show("reset-code", form, error: error)
                }
            }
        }
        routes.on(.post, "/ui/email-change") { request, context in
            try await post(request, context) { form in
                do {
                    let outcome = try await useCases.verification.verify(
                        VerifyRequest(type: "email_change", email: form.email, token: form.code), client: context.client)
                    switch outcome {
                    case .session(let session, _): return try await finish(session, method: "email_change", flow: form.flow)
                    case .pending:
                        return render(
                            "email-change", title: "One more code", flow: form.flow, csrf: form.csrf,
                            values: ["info": "Confirmed. Now enter the code sent to your other address."])
                    }
                } catch let error as AuthError {
                    return show("email-change", form, error: error)
                }
            }
        }
        registerContinue(&routes)
    }

    func registerContinue(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/ui/continue") { request, _ in
            guard let state = security.open(SignedIn.self, cookie: Self.signedInCookie, in: request) else { return refuse(Self.expired) }
            let csrf = security.csrf(for: request)
            return render(
                "continue", title: Self.titles["continue"] ?? "", flow: state.flow, csrf: csrf.token, values: ["email": state.email],
                cookies: csrf.cookie.map { [$0] } ?? [])
        }
        routes.on(.post, "/ui/continue") { request, context in
            try await signedIn(request, context) { state, principal, _ in
                try await handOver(state, principal)
            }
        }
        routes.on(.post, "/ui/passkey-options") { request, context in
            do {
                try security.checkCSRF(request, token: request.headers[HTTPField.Name("X-CSRF-Token")!])
                guard let state = security.open(SignedIn.self, cookie: Self.signedInCookie, in: request) else {
                    throw AuthError(.noAuthorization, "Your sign-in has expired")
                }
                let principal = try await useCases.sessions.authenticator.authenticate(authorization: "Bearer \(state.accessToken)")
                return try JSONResponse.make(try await useCases.passkeys.registrationOptions(for: principal), noStore: true)
            } catch let refusal as PageRefusal {
                throw AuthError(.noAuthorization, refusal.text)
            }
        }
        routes.on(.post, "/ui/passkey-register") { request, context in
            try await signedIn(request, context) { state, principal, fields in
                let form = PostedForm(fields: fields, flow: state.flow, csrf: security.csrf(for: request).token)
                do {
                    _ = try await useCases.passkeys.register(
                        PasskeyVerifyRequest(challengeID: fields["challenge_id"], credential: try Self.credential(form)),
                        principal: principal, client: context.client)
                } catch let error as AuthError {
                    return show("continue", form, values: ["email": state.email], error: error)
                }
                return try await handOver(state, principal)
            }
        }
    }

    static let expired = PageRefusal(
        status: .forbidden, title: "Your sign-in has expired", text: "Start again from the app: sign-ins wait ten minutes at most.")

    /// A POST from the signed-in page: the CSRF check, the page's state, and the session it
    /// names, still valid (not signed out, the user not banned since).
    func signedIn(
        _ request: Request, _ context: APIRequestContext,
        _ body: (_ state: SignedIn, _ principal: Principal, _ fields: [String: String]) async throws -> Response
    ) async throws -> Response {
        do {
            let fields = try await FormBody.fields(of: request, context: context)
            try security.checkCSRF(request, token: fields["csrf"])
            guard let state = security.open(SignedIn.self, cookie: Self.signedInCookie, in: request) else { throw Self.expired }
            let principal: Principal
            do {
                principal = try await useCases.sessions.authenticator.authenticate(authorization: "Bearer \(state.accessToken)")
            } catch {
                throw Self.expired
            }
            return try await body(state, principal, fields)
        } catch let refusal as PageRefusal {
            return refuse(refusal)
        }
    }

    /// The session to the app, by a code for its PKCE challenge; the signed-in page's cookie goes.
    func handOver(_ state: SignedIn, _ principal: Principal) async throws -> Response {
        guard let session = principal.session else { return refuse(Self.expired) }
        let code = try await useCases.sessions.handOff.code(
            userID: principal.user.id, sessionID: session.id, challenge: state.flow.challenge, method: state.method)
        var response = BrowserRedirect.redirect(to: state.flow.redirectTo, query: "code=\(code)")
        response.headers[.setCookie] = security.setCookie(Self.signedInCookie, "", maxAge: 0)
        return response
    }
}
