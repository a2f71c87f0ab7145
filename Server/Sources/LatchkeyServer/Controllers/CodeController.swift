import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's endpoints that send a code or a link: `/otp`, `/magiclink`, `/recover`, `/resend`
/// and a signed-in user's `/reauthenticate`.
struct CodeController {
    let oneTimeCodes: OneTimeCodes
    /// GoTrue's captcha on the endpoints that send codes.
    let captcha: CaptchaGuard

    func register(_ routes: inout RouteRegistrar) {
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
        routes.signedIn(.get, "/reauthenticate") { _, context in
            try JSONResponse.make(try await oneTimeCodes.reauthenticate(principal: context.principal, client: context.client))
        }
    }
}
