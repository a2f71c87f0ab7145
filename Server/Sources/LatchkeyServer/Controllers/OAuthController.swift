import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's redirect flow: `GET /authorize` sends the browser to the provider; `GET|POST
/// /callback` (Apple answers with a form post) brings it back and on to the app.
struct OAuthController {
    let flows: OAuthRedirects
    /// The cookie that binds each flow to the browser that started it.
    let binding: BrowserBinding

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/authorize") { request, _ in
            let browser = binding.binding(for: request)
            let url = try await flows.authorize(
                provider: request.queryValue("provider"), redirectTo: request.queryValue("redirect_to"),
                scopes: request.queryValue("scopes"), codeChallenge: request.queryValue("code_challenge"),
                codeChallengeMethod: request.queryValue("code_challenge_method"), binding: browser.value)
            return Self.toProvider(url, setCookie: browser.setCookie)
        }
        routes.on(.get, "/callback") { request, context in
            // Providers encode their answer as a form (`+` for a space).
            let query = FormBody.fields(request.uri.query ?? "")
            let callback = OAuthRedirects.Callback(
                state: query["state"], code: query["code"], error: query["error"], errorDescription: query["error_description"])
            return Self.answer(await flows.callback(callback, binding: binding.value(in: request), client: context.client))
        }
        routes.on(.post, "/callback") { request, context in
            let form = try await FormBody.fields(of: request, context: context)
            let callback = OAuthRedirects.Callback(
                state: form["state"], code: form["code"], error: form["error"], errorDescription: form["error_description"],
                appleUser: form["user"])
            return Self.answer(await flows.callback(callback, binding: binding.value(in: request), client: context.client))
        }
        // A link ticket (``IdentityLinks/authorize``) opened in the browser that will talk to the
        // provider: bound to it here, then on to the provider.
        routes.on(.get, "/user/identities/continue") { request, _ in
            let browser = binding.binding(for: request)
            do {
                let url = try await flows.continueLink(ticket: request.queryValue("ticket"), binding: browser.value)
                return Self.toProvider(url, setCookie: browser.setCookie)
            } catch let error as AuthError {
                return Self.answer(.failure(error, providerError: nil, to: flows.siteURL))
            }
        }
    }

    /// The redirect to a provider, setting the browser's binding cookie.
    static func toProvider(_ url: String, setCookie: String) -> Response {
        Response(
            status: .found,
            headers: [.location: url, .cacheControl: "no-store", .referrerPolicy: "no-referrer", .setCookie: setCookie])
    }

    /// GoTrue's redirects: the session in the fragment, a PKCE code in the query, an error in both.
    static func answer(_ outcome: OAuthRedirects.Outcome) -> Response {
        switch outcome {
        case .session(let session, let providerToken, let target):
            let fragment = [
                "access_token=\(session.accessToken)", "expires_at=\(session.expiresAt)", "expires_in=\(session.expiresIn)",
                "provider_token=\(FormEncoding.component(providerToken))", "refresh_token=\(session.refreshToken)", "sb=",
                "token_type=bearer",
            ].joined(separator: "&")
            return BrowserRedirect.redirect(to: target, fragment: fragment)
        case .authCode(let code, let target):
            return BrowserRedirect.redirect(to: target, query: "code=\(FormEncoding.component(code))")
        case .failure(let error, let providerError, let target):
            var pairs = [("error", providerError ?? oauthError(for: error))]
            if providerError == nil { pairs.append(("error_code", error.code.rawValue)) }
            pairs.append(("error_description", error.message))
            let query = pairs.map { "\($0.0)=\(FormEncoding.component($0.1))" }.joined(separator: "&")
            guard let url = RedirectURL(target) else { return BrowserRedirect.redirect(to: target, fragment: query + "&sb=") }
            return BrowserRedirect.seeOther(url.appendingQuery(query).replacingFragment(query + "&sb=").description)
        }
    }

    /// GoTrue's OAuth `error` for an error of ours: a refused account is `access_denied`,
    /// otherwise by status.
    static func oauthError(for error: AuthError) -> String {
        switch error.code {
        case .signupDisabled, .userBanned, .providerEmailNeedsVerification: return "access_denied"
        default: break
        }
        switch APIErrorResponder.status(for: error).code {
        case 400: return "invalid_request"
        case 401: return "unauthorized_client"
        case 403: return "access_denied"
        case 503: return "temporarily_unavailable"
        default: return "server_error"
        }
    }
}
