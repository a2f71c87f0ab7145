import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import Logging

/// `/verify`: codes and link secrets.
///
/// `GET /verify` never consumes a link by default: it shows a page whose button posts the same
/// link back (`POST /verify`, form-encoded), so a mail scanner that opens links does not burn
/// them. The POST redeems it and redirects like GoTrue's GET (`redirect_to#access_token=…`).
struct VerifyController {
    let verification: Verification
    /// `GET /verify` shows a page that posts the link back instead of redeeming it.
    let linkConfirmationPage: Bool

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/verify") { request, context in
            let data = Data(try await request.collectBody(context: context).readableBytesView)
            // A form is the link page's button; a JSON object is JSON whatever the `Content-Type`
            // says, as GoTrue reads it (`curl -d '{…}'` labels it a form).
            let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
            if isForm, !Request.isJSONObject(data) {
                let form = FormBody.fields(String(decoding: data, as: UTF8.self))
                // As `GET /verify`: a missing or unknown type, or no token, is a 400, not a redirect.
                _ = try Verification.type(form["type"])
                guard let token = form["token"], !token.isEmpty else { throw Self.tokenRequired }
                return await redeemLink(
                    token: token, type: form["type"], redirectTo: form["redirect_to"], request: request, context: context)
            }
            let body = try Request.decodeJSON(VerifyRequest.self, from: data)
            switch try await verification.verify(body, client: context.client) {
            case .session(let session, _): return try JSONResponse.make(session, noStore: true)
            case .pending(let message, _): return try JSONResponse.make(EmailChangePending(msg: message), noStore: true)
            }
        }
        routes.on(.get, "/verify") { request, context in
            let token = request.queryValue("token")
            let type = request.queryValue("type")
            let redirectTo = request.queryValue("redirect_to")
            // The type first, then the token, as GoTrue's `GET /verify`: a missing or unknown type or
            // a missing token is a 400, never a page.
            _ = try Verification.type(type)
            guard let token, !token.isEmpty else { throw Self.tokenRequired }
            if !linkConfirmationPage {
                return await redeemLink(token: token, type: type, redirectTo: redirectTo, request: request, context: context)
            }
            guard let type, token.utf8.count <= 128, type.utf8.count <= 32 else {
                return BrowserRedirect.redirect(
                    to: verification.redirects.resolve(redirectTo),
                    fragment: Self.errorFragment(AuthError.linkInvalid))
            }
            // The button's form ends in a redirect to the app (or the site URL): browsers hold that
            // redirect to the page's form-action, so both origins are in it.
            let targets = [verification.redirects.resolve(redirectTo), verification.redirects.siteURL]
            return LinkConfirmationPage.response(token: token, type: type, redirectTo: redirectTo, formTargets: targets)
        }
    }

    /// GoTrue's answer to a `/verify` link without its token.
    static let tokenRequired = AuthError.validation("Verify requires a token or a token hash")

    /// Redeems a link and answers with GoTrue's 303 redirect, carrying the session or the error.
    func redeemLink(token: String?, type: String?, redirectTo: String?, request: Request, context: APIRequestContext) async
        -> Response
    {
        let fallback = verification.redirects.resolve(redirectTo)
        do {
            guard let token, !token.isEmpty else { throw AuthError.linkInvalid }
            let verificationType = try Verification.type(type)
            switch try await verification.openLink(token, type: verificationType, client: context.client) {
            case .session(let session, let stored):
                let target = redirectTo.map { verification.redirects.resolve($0) } ?? stored
                let fragment = [
                    "access_token=\(session.accessToken)", "expires_at=\(session.expiresAt)", "expires_in=\(session.expiresIn)",
                    "refresh_token=\(session.refreshToken)", "token_type=bearer", "type=\(verificationType.rawValue)", "sb=",
                ].joined(separator: "&")
                return BrowserRedirect.redirect(to: target, fragment: fragment)
            case .authCode(let code, let stored):
                // PKCE: only the code travels; the app that holds the verifier exchanges it.
                let target = redirectTo.map { verification.redirects.resolve($0) } ?? stored
                return BrowserRedirect.redirect(to: target, query: "code=\(code)")
            case .pending(let message, let stored):
                // The first of two email-change confirmations: GoTrue's message, no session.
                let target = redirectTo.map { verification.redirects.resolve($0) } ?? stored
                let text = message.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return BrowserRedirect.redirect(to: target, fragment: "message=\(text)&sb=")
            }
        } catch let error as AuthError {
            return BrowserRedirect.redirect(to: fallback, fragment: Self.errorFragment(error))
        } catch {
            context.logger.error("link redemption failed", metadata: ["error": "\(error)"])
            return BrowserRedirect.redirect(to: fallback, fragment: Self.errorFragment(AuthError(.unexpectedFailure, "Unexpected failure")))
        }
    }

    static func errorFragment(_ error: AuthError) -> String {
        let description = error.message.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let kind = error.code == .overRequestRateLimit ? "too_many_requests" : "access_denied"
        return "error=\(kind)&error_code=\(error.code.rawValue)&error_description=\(description)&sb="
    }
}

extension HTTPField.Name {
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
}
