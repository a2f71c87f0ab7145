import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's `POST /token`: the grants that give a session (password, refresh token, PKCE code,
/// OpenID id token, Latchkey's device-key assertion), and GoTrue's answers to the others.
struct TokenController {
    /// Who the caller of an id-token grant that links an identity is.
    let authenticator: Authenticator
    let passwordSignIn: PasswordSignIn
    let sessionRefresh: SessionRefresh
    let authCodeExchange: AuthCodeExchange
    /// `grant_type=id_token`: Sign in with Apple, Google, Microsoft, Keycloak.
    let idTokenSignIn: IDTokenSignIn
    let web3SignIn: Web3SignIn
    let deviceKeySignIn: DeviceKeySignIn
    /// GoTrue's captcha on password sign-ins and the grants it does not know.
    let captcha: CaptchaGuard

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/token") { request, context in
            switch request.queryValue("grant_type") {
            case "password":
                let body = try await captcha.body(PasswordGrantRequest.self, of: request, context: context)
                return try JSONResponse.make(try await passwordSignIn.signIn(body, client: context.client), noStore: true)
            case "refresh_token":
                let body = try await request.decodeJSON(RefreshTokenGrantRequest.self, context: context)
                return try JSONResponse.make(try await sessionRefresh.refresh(body, client: context.client), noStore: true)
            case "pkce":
                let body = try await request.decodeJSON(PKCEGrantRequest.self, context: context)
                return try JSONResponse.make(try await authCodeExchange.exchange(body, client: context.client), noStore: true)
            case "id_token":
                let body = try await request.decodeJSON(IDTokenGrantRequest.self, context: context)
                // Linking is for a signed-in user: the bearer token names whom.
                let authorization = request.headers[.authorization]
                let principal =
                    body.linkIdentity == true && authorization != nil
                    ? try await authenticator.authenticate(authorization: authorization) : nil
                return try JSONResponse.make(
                    try await idTokenSignIn.signIn(body, principal: principal, client: context.client), noStore: true)
            case JWTBearerGrantRequest.grantType:
                let body = try await request.decodeJSON(JWTBearerGrantRequest.self, context: context)
                return try JSONResponse.make(try await deviceKeySignIn.signIn(body, client: context.client), noStore: true)
            case "web3":
                // GoTrue checks the captcha of a wallet's sign-in too.
                let body = try await captcha.body(Web3GrantRequest.self, of: request, context: context)
                if body.linkIdentity == true {
                    // Linking is for a signed-in user: the bearer token names whom.
                    let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
                    return try JSONResponse.make(
                        try await web3SignIn.link(body, principal: principal, client: context.client), noStore: true)
                }
                return try JSONResponse.make(try await web3SignIn.signIn(body, client: context.client), noStore: true)
            default:
                // GoTrue checks the captcha of every grant but these four before it reads the grant.
                try await captcha.check(request, context: context)
                throw AuthError(.invalidCredentials, "unsupported_grant_type")
            }
        }
    }
}
