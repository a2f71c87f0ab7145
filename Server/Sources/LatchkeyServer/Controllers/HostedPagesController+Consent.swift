import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Latchkey's own consent page for the OAuth server (#40), used when the app names none
/// (`oauth-server-authorization-path` unset): `/oauth/authorize` sends the browser to
/// `/ui/consent?authorization_id=…`. The user signs in on the hosted pages (their second factor
/// too), whose flow comes back here with a code only this browser can exchange (its verifier
/// sealed in the `lk_consent` cookie); the page then shows the client and the scopes and posts
/// the user's answer through the same use case as `POST /oauth/authorizations/{id}/consent`. The
/// session signed in for the decision ends with it: no app holds it.
extension HostedPagesController {
    /// The page's state: the request, then the verifier of the sign-in's code, then its session.
    struct ConsentState: Codable {
        var authorizationID: String
        var verifier: String?
        var accessToken: String?
    }

    static let consentCookie = "lk_consent"

    static let consentExpired = PageRefusal(
        status: .badRequest, title: "This request has expired",
        text: "The application's request was answered already, or took too long. Go back to the application and start again.")

    func registerConsent(_ routes: inout RouteRegistrar) {
        guard let hostedPage = options.consentPage, let server = useCases.sessions.oauthServer else { return }
        routes.on(.get, "/ui/consent") { request, context in
            let id = request.queryValue("authorization_id") ?? ""
            guard OAuthServer.isAuthorizationID(id) else { return refuse(Self.consentExpired) }
            let state = security.open(ConsentState.self, cookie: Self.consentCookie, in: request).flatMap {
                $0.authorizationID == id ? $0 : nil
            }
            if let code = request.queryValue("code") {
                // Back from the sign-in: its code, exchanged with this browser's verifier.
                guard let verifier = state?.verifier,
                    let session = try? await useCases.sessions.authCode.exchange(
                        PKCEGrantRequest(authCode: code, codeVerifier: verifier), client: context.client)
                else { return refuse(Self.consentExpired) }
                let signedIn = ConsentState(authorizationID: id, accessToken: session.accessToken)
                return seeOther("consent?authorization_id=\(id)", cookie: try sealed(signedIn))
            }
            if let token = state?.accessToken, let principal = try? await principal(of: token) {
                let csrf = security.csrf(for: request)
                return try await consentPage(id, principal, server: server, csrf: csrf.token, cookies: csrf.cookie.map { [$0] } ?? [])
            }
            // Sign in first, on the hosted pages, with a flow that comes back here.
            let verifier = Base64URL.encode(SecureRandom.bytes(32))
            let flow = HostedFlow(
                redirectTo: "\(hostedPage)?authorization_id=\(id)", codeChallenge: PKCEChallenge.s256(of: verifier),
                codeChallengeMethod: "s256")
            return seeOther("sign-in?\(flow.query)", cookie: try sealed(ConsentState(authorizationID: id, verifier: verifier)))
        }
        routes.on(.post, "/ui/consent") { request, context in
            do {
                let fields = try await FormBody.fields(of: request, context: context)
                try security.checkCSRF(request, token: fields["csrf"])
                let id = fields["authorization_id"] ?? ""
                guard let state = security.open(ConsentState.self, cookie: Self.consentCookie, in: request), state.authorizationID == id,
                    let token = state.accessToken, let principal = try? await principal(of: token)
                else { throw Self.consentExpired }
                let action = fields["action"] == "approve" ? OAuthConsentRequest.approve : .deny
                let answer: OAuthConsentResponse
                do {
                    answer = try await server.consent(id: id, action, principal: principal, origin: nil)
                } catch is AuthError {
                    throw Self.consentExpired
                }
                try? await useCases.userAccount.logout(principal: principal, scope: .local)
                return leaveConsent(to: answer.redirectURL)
            } catch let refusal as PageRefusal {
                return refuse(refusal)
            }
        }
    }

    /// The question: who asks, for what, for whom; or, when the user's consent already covers
    /// it, straight back to the client.
    func consentPage(_ id: String, _ principal: Principal, server: OAuthServer, csrf: String, cookies: [String]) async throws
        -> Response
    {
        let view: OAuthAuthorizationView
        do {
            view = try await server.authorization(id: id, principal: principal, origin: nil)
        } catch is AuthError {
            return refuse(Self.consentExpired)
        }
        switch view {
        case .approved(let answer):
            try? await useCases.userAccount.logout(principal: principal, scope: .local)
            return leaveConsent(to: answer.redirectURL)
        case .details(let details):
            let e = EmailComposer.escape
            let fields =
                #"<input type="hidden" name="csrf" value="\#(e(csrf))"><input type="hidden" name="authorization_id" value="\#(e(id))">"#
            let values: [String: Any] = [
                "client_name": details.client.name.isEmpty ? "An application" : details.client.name,
                "client_uri": details.client.uri, "email": principal.user.email ?? principal.user.phone ?? "",
                "scopes": details.scopes.compactMap { Self.scopeText[$0] }, "has_scopes": !details.scopes.isEmpty,
                "consent_fields": fields,
                "redirect_host": URLComponents(string: details.redirectURI)?.host ?? details.redirectURI,
            ]
            return pages.response(
                "consent", title: "Allow access", values: values, formTarget: details.redirectURI, cookies: cookies)
        }
    }

    /// What each scope lets the client do, as the page says it.
    static let scopeText = [
        "openid": "Know who you are on this account", "email": "See your email address",
        "profile": "See your name and profile picture", "phone": "See your phone number",
        "offline_access": "Keep this access while you're away",
    ]

    func principal(of token: String) async throws -> Principal {
        try await useCases.sessions.authenticator.authenticate(authorization: "Bearer \(token)")
    }

    func sealed(_ state: ConsentState) throws -> String {
        security.setCookie(Self.consentCookie, try security.seal(state, name: Self.consentCookie), maxAge: 900)
    }

    func seeOther(_ location: String, cookie: String) -> Response {
        Response(
            status: .seeOther,
            headers: [.location: location, .cacheControl: "no-store", .referrerPolicy: "no-referrer", .setCookie: cookie])
    }

    /// Back to the client (its registered redirect URI, with the code or the denial), the page's
    /// cookie gone.
    func leaveConsent(to url: String) -> Response {
        seeOther(url, cookie: security.setCookie(Self.consentCookie, "", maxAge: 0))
    }
}
