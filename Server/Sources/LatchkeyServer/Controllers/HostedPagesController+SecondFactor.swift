import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The second-factor step (the role of Auth0's MFA page in Universal Login): a user with a
/// verified factor who signed in with a first one is asked for it before the session goes to the
/// app: an authenticator app's code, a code texted to their phone, their security key, or one of
/// their recovery codes. The session waits, sealed in an `HttpOnly` cookie for ten minutes, and
/// every answer goes through the same use case as `/factors/{id}/verify`, so the same caps, locks
/// and hooks apply.
extension HostedPagesController {
    func registerSecondFactor(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/ui/second-factor") { request, _ in
            guard let state = security.open(SignedIn.self, cookie: Self.secondFactorCookie, in: request),
                let principal = try? await principal(of: state)
            else { return refuse(Self.expired) }
            let csrf = security.csrf(for: request)
            return try await secondFactorPage(state, principal, csrf: csrf.token, cookies: csrf.cookie.map { [$0] } ?? [])
        }
        routes.on(.post, "/ui/second-factor") { request, context in
            try await owing(request, context) { state, principal, form in
                let factorID = form.fields["factor_id"] ?? ""
                let challengeID = form.fields["challenge_id"].flatMap { $0.isEmpty ? nil : $0 }
                do {
                    let mfa = useCases.sessions.mfa
                    var verify = VerifyFactorRequest(challengeID: challengeID, code: form.code)
                    if let text = form.fields["credential"], !text.isEmpty {
                        // A security key's answer to the challenge the page's script opened.
                        verify = VerifyFactorRequest(
                            challengeID: challengeID, code: nil,
                            webauthn: .init(type: "request", credentialResponse: try Self.credential(form)))
                    } else if challengeID == nil {
                        // An authenticator app's code needs no message first: its challenge is opened here.
                        let opened = try await mfa.challenge(id: factorID, principal: principal, client: context.client)
                        verify.challengeID = opened.id.lowercasedString
                    }
                    let session = try await mfa.verify(id: factorID, verify, principal: principal, client: context.client)
                    return try await leave(with: session, state)
                } catch let error as AuthError {
                    let sent = challengeID.map { ["factor_id": factorID, "challenge_id": $0] }
                    return try await secondFactorPage(
                        state, principal, csrf: form.csrf, sent: form.fields["credential"] == nil ? sent : nil, error: error)
                }
            }
        }
        routes.on(.post, "/ui/second-factor-send") { request, context in
            try await owing(request, context) { state, principal, form in
                let factorID = form.fields["factor_id"] ?? ""
                do {
                    let challenge = try await useCases.sessions.mfa.challenge(id: factorID, principal: principal, client: context.client)
                    let sent = ["factor_id": factorID, "challenge_id": challenge.id.lowercasedString]
                    return try await secondFactorPage(state, principal, csrf: form.csrf, sent: sent)
                } catch let error as AuthError {
                    return try await secondFactorPage(state, principal, csrf: form.csrf, error: error)
                }
            }
        }
        routes.on(.post, "/ui/second-factor-options") { request, context in
            // The script's call: the CSRF token in a header, the challenge of the user's security key.
            do {
                try security.checkCSRF(request, token: request.headers[HTTPField.Name("X-CSRF-Token")!])
            } catch let refusal as PageRefusal {
                throw AuthError(.noAuthorization, refusal.text)
            }
            guard let state = security.open(SignedIn.self, cookie: Self.secondFactorCookie, in: request) else {
                throw AuthError(.noAuthorization, "Your sign-in has expired")
            }
            let principal = try await principal(of: state)
            let factors = try await useCases.sessions.mfa.factors(ofUser: principal.user.id.uuidString)
            guard let key = factors.first(where: { $0.factorType == .webauthn && $0.status == .verified }) else {
                throw AuthError(.mfaFactorNotFound, "This account has no security key")
            }
            let challenge = try await useCases.sessions.mfa.challenge(
                id: key.id.uuidString, principal: principal, client: context.client)
            return try JSONResponse.make(challenge, noStore: true)
        }
        routes.on(.post, "/ui/recovery-code") { request, context in
            try await owing(request, context) { state, principal, form in
                do {
                    let session = try await useCases.sessions.mfa.verifyRecoveryCode(
                        VerifyRecoveryCodeRequest(code: form.code), principal: principal, client: context.client)
                    return try await leave(with: session, state)
                } catch let error as AuthError {
                    return try await secondFactorPage(state, principal, csrf: form.csrf, error: error, recoveryOpen: true)
                }
            }
        }
    }

    /// The session the step's state names, still valid (not signed out, the user not banned since).
    func principal(of state: SignedIn) async throws -> Principal {
        try await useCases.sessions.authenticator.authenticate(authorization: "Bearer \(state.accessToken)")
    }

    /// A POST from the step's page: the CSRF check, the step's state and its session.
    func owing(
        _ request: Request, _ context: APIRequestContext, _ body: (SignedIn, Principal, PostedForm) async throws -> Response
    ) async throws -> Response {
        do {
            let fields = try await FormBody.fields(of: request, context: context)
            try security.checkCSRF(request, token: fields["csrf"])
            guard let state = security.open(SignedIn.self, cookie: Self.secondFactorCookie, in: request),
                let principal = try? await principal(of: state)
            else { throw Self.expired }
            return try await body(state, principal, PostedForm(fields: fields, flow: state.flow, csrf: security.csrf(for: request).token))
        } catch let refusal as PageRefusal {
            return refuse(refusal)
        }
    }

    /// The step is done: its cookie goes, and the raised session ends the sign-in.
    func leave(with session: Session, _ state: SignedIn) async throws -> Response {
        var response = try await finish(session, method: state.method, flow: state.flow, raised: true)
        response.headers.append(HTTPField(name: .setCookie, value: security.setCookie(Self.secondFactorCookie, "", maxAge: 0)))
        return response
    }

    /// The step's page: a form for each kind of factor the user has verified (the first of each),
    /// and a recovery code in their place, open after a wrong answer. `sent` names the phone
    /// factor's open challenge once its code went.
    func secondFactorPage(
        _ state: SignedIn, _ principal: Principal, csrf: String, sent: [String: String]? = nil, error: AuthError? = nil,
        recoveryOpen: Bool = false, cookies: [String] = []
    ) async throws -> Response {
        let factors = try await useCases.sessions.mfa.factors(ofUser: principal.user.id.uuidString).filter { $0.status == .verified }
        func first(_ type: FactorType) -> Factor? { factors.first { $0.factorType == type } }
        var values: [String: Any] = ["email": state.email, "recovery_open": recoveryOpen || error != nil]
        if let app = first(.totp) {
            values["totp"] = ["id": app.id.lowercasedString, "name": app.friendlyName ?? ""]
        }
        if let phone = first(.phone) {
            let id = phone.id.lowercasedString
            var shown: [String: Any] = ["id": id, "number": phone.phone ?? ""]
            if let sent, sent["factor_id"]?.lowercased() == id { shown["challenge_id"] = sent["challenge_id"] ?? "" }
            values["phone"] = shown
        }
        if let key = first(.webauthn) { values["key"] = ["id": key.id.lowercasedString] }
        return render(
            "second-factor", title: Self.titles["second-factor"] ?? "", flow: state.flow, csrf: csrf, values: values,
            error: error.map(Self.text), status: error.map(Self.status) ?? .ok, cookies: cookies)
    }
}
