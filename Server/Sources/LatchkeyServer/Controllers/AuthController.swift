import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import Logging

/// The GoTrue endpoints for sign-up, sign-in, codes, sessions and the user.
struct AuthController {
    /// Who a request is.
    let authenticator: Authenticator
    let anonymousUsers: AnonymousUsers
    let passwordSignIn: PasswordSignIn
    let authCodeExchange: AuthCodeExchange
    let deviceKeySignIn: DeviceKeySignIn
    /// `grant_type=id_token`: Sign in with Apple, Google, Microsoft, Keycloak.
    let idTokenSignIn: IDTokenSignIn
    let sessionRefresh: SessionRefresh
    /// `/otp`, `/magiclink`, `/recover`, `/resend` and `/reauthenticate`.
    let oneTimeCodes: OneTimeCodes
    /// `GET|PUT /user` and `/logout`.
    let userAccount: UserAccount
    /// `POST /signup` with an address or a number.
    let signUp: SignUp
    /// GoTrue's captcha on sign-ups, password sign-ins and the endpoints that send codes.
    let captcha: CaptchaGuard

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/signup") { request, context in
            let body = try await captcha.body(SignUpRequest.self, of: request, context: context)
            if AnonymousUsers.isAnonymous(body) {
                return try JSONResponse.make(try await anonymousUsers.signUp(body, client: context.client), noStore: true)
            }
            switch try await signUp.signUp(body, redirectTo: request.queryValue("redirect_to"), client: context.client) {
            case .session(let session): return try JSONResponse.make(session, noStore: true)
            case .user(let user): return try JSONResponse.make(user)
            }
        }
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
                // Wallet sign-in is not built yet: GoTrue's answer with both chains off, after its captcha.
                try await captcha.check(request, context: context)
                throw AuthError(.web3ProviderDisabled, "Web3 provider is disabled")
            default:
                // GoTrue checks the captcha of every grant but these four before it reads the grant.
                try await captcha.check(request, context: context)
                throw AuthError(.invalidCredentials, "unsupported_grant_type")
            }
        }
        routes.on(.post, "/otp") { request, context in
            let body = try await captcha.body(OTPRequest.self, of: request, context: context)
            return try JSONResponse.make(
                try await oneTimeCodes.sendOTP(body, redirectTo: request.queryValue("redirect_to"), client: context.client))
        }
        routes.on(.post, "/magiclink") { request, context in
            let body = try await captcha.body(OTPRequest.self, of: request, context: context)
            return try JSONResponse.make(
                try await oneTimeCodes.magicLink(body, redirectTo: request.queryValue("redirect_to"), client: context.client))
        }
        routes.on(.post, "/recover") { request, context in
            let body = try await captcha.body(RecoverRequest.self, of: request, context: context)
            return try JSONResponse.make(
                try await oneTimeCodes.recover(
                    email: body.email, challenge: (body.codeChallenge, body.codeChallengeMethod),
                    redirectTo: request.queryValue("redirect_to"), client: context.client
                ).answer)
        }
        routes.on(.post, "/resend") { request, context in
            let body = try await captcha.body(ResendRequest.self, of: request, context: context)
            return try JSONResponse.make(
                try await oneTimeCodes.resend(body, redirectTo: request.queryValue("redirect_to"), client: context.client))
        }
        routes.on(.get, "/user") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(userAccount.user(for: principal))
        }
        routes.on(.put, "/user") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(UpdateUserRequest.self, context: context)
            return try JSONResponse.make(
                try await userAccount.update(
                    body, principal: principal, client: context.client, redirectTo: request.queryValue("redirect_to")))
        }
        routes.on(.delete, "/user") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let body = try await request.decodeJSON(DeleteAccountRequest.self, context: context, allowingEmpty: true)
            try await userAccount.deleteAccount(principal: principal, nonce: body.nonce)
            return Response(status: .noContent)
        }
        routes.on(.get, "/reauthenticate") { request, context in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            return try JSONResponse.make(try await oneTimeCodes.reauthenticate(principal: principal, client: context.client))
        }
        routes.on(.post, "/logout") { request, _ in
            let principal = try await authenticator.authenticate(authorization: request.headers[.authorization])
            let rawScope = request.queryValue("scope") ?? "global"
            guard let scope = LogoutScope(rawValue: rawScope) else {
                throw AuthError.validation("Unsupported logout scope \"\(rawScope.prefix(32))\"")
            }
            try await userAccount.logout(principal: principal, scope: scope)
            return Response(status: .noContent)
        }
    }
}
