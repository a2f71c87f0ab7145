import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's `POST /signup`: with an address or a number, or anonymous.
struct SignUpController {
    let signUp: SignUp
    let anonymousUsers: AnonymousUsers
    /// GoTrue's captcha on sign-ups.
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
    }
}
