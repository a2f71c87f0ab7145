import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The sign-in and sign-up forms: an emailed code or link, a password, a passkey, a new account.
extension HostedPagesController {
    func registerSignIn(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/ui/code") { request, context in
            try await post(request, context) { fields, flow, csrf in
                let email = fields["email"] ?? ""
                do {
                    _ = try await sendCode(to: email, flow: flow, link: false, client: context.client)
                } catch let error as AuthError {
                    if error.code == .overRequestRateLimit || error.code == .validationFailed || error.code == .emailAddressInvalid {
                        return render(
                            "sign-in", title: "Sign in", flow: flow, csrf: csrf, values: ["email": email], error: Self.text(error),
                            status: Self.status(error))
                    }
                    return render(
                        "code", title: "Enter your code", flow: flow, csrf: csrf, values: ["email": email], error: Self.text(error),
                        status: Self.status(error))
                }
                return render("code", title: "Enter your code", flow: flow, csrf: csrf, values: ["email": email])
            }
        }
        routes.on(.post, "/ui/magic-link") { request, context in
            try await post(request, context) { fields, flow, csrf in
                let email = fields["email"] ?? ""
                do {
                    _ = try await sendCode(to: email, flow: flow, link: true, client: context.client)
                } catch let error as AuthError {
                    return render(
                        "sign-in", title: "Sign in", flow: flow, csrf: csrf, values: ["email": email], error: Self.text(error),
                        status: Self.status(error))
                }
                return render("check-email", title: "Check your email", flow: flow, csrf: csrf, values: ["email": email])
            }
        }
        routes.on(.post, "/ui/verify-code") { request, context in
            try await post(request, context) { fields, flow, csrf in
                let email = fields["email"] ?? ""
                do {
                    let outcome = try await useCases.verification.verify(
                        VerifyRequest(type: "email", email: email, token: (fields["code"] ?? "").trimmingCharacters(in: .whitespaces)),
                        client: context.client)
                    guard case .session(let session, _) = outcome else { throw AuthError.otpInvalid }
                    return try await finish(session, method: "otp", flow: flow)
                } catch let error as AuthError {
                    return render(
                        "code", title: "Enter your code", flow: flow, csrf: csrf, values: ["email": email], error: Self.text(error),
                        status: Self.status(error))
                }
            }
        }
        routes.on(.post, "/ui/password") { request, context in
            try await post(request, context) { fields, flow, csrf in
                let email = fields["email"] ?? ""
                do {
                    let session = try await useCases.passwordSignIn.signIn(
                        PasswordGrantRequest(email: email, password: fields["password"] ?? ""), client: context.client)
                    return try await finish(session, method: "password", flow: flow)
                } catch let error as AuthError {
                    return render(
                        "sign-in", title: "Sign in", flow: flow, csrf: csrf, values: ["email": email, "password_open": true],
                        error: Self.text(error), status: Self.status(error))
                }
            }
        }
        routes.on(.post, "/ui/sign-up") { request, context in
            try await post(request, context) { fields, flow, csrf in
                let email = fields["email"] ?? ""
                do {
                    let made = try await useCases.signUp.signUp(
                        SignUpRequest(email: email, password: fields["password"] ?? ""), redirectTo: flow.redirectTo, client: context.client
                    )
                    if case .session(let session) = made { return try await finish(session, method: "password", flow: flow) }
                    return render("code", title: "Confirm your address", flow: flow, csrf: csrf, values: ["email": email])
                } catch let error as AuthError {
                    return render(
                        "sign-up", title: "Create your account", flow: flow, csrf: csrf, values: ["email": email], error: Self.text(error),
                        status: Self.status(error))
                }
            }
        }
        routes.on(.post, "/ui/passkey") { request, context in
            try await post(request, context) { fields, flow, csrf in
                do {
                    let credential = try JSONDecoder().decode(PasskeyCredential.self, from: Data((fields["credential"] ?? "").utf8))
                    let session = try await useCases.passkeys.signIn(
                        PasskeyVerifyRequest(challengeID: fields["challenge_id"], credential: credential), client: context.client)
                    return try await finish(session, method: "passkey", flow: flow)
                } catch let error as AuthError {
                    return render("sign-in", title: "Sign in", flow: flow, csrf: csrf, error: Self.text(error), status: Self.status(error))
                } catch is DecodingError {
                    return render(
                        "sign-in", title: "Sign in", flow: flow, csrf: csrf, error: Self.text(Passkeys.invalidCredential),
                        status: .badRequest)
                }
            }
        }
    }

    /// Sends a sign-in code (or a link carrying the app's PKCE challenge). Unknown addresses get
    /// the same page as known ones: with sign-ups on, the code makes the account; with them off,
    /// the refusal is not shown, so the page never tells whether an address has an account.
    func sendCode(to email: String, flow: HostedFlow, link: Bool, client: ClientInfo) async throws -> OTPResponse? {
        var request = OTPRequest(email: email, createUser: !options.disableSignup)
        if link {
            request.codeChallenge = flow.codeChallenge
            request.codeChallengeMethod = flow.codeChallengeMethod
        }
        do {
            return try await useCases.codes.sendOTP(request, redirectTo: flow.redirectTo, client: client)
        } catch let error as AuthError where [.otpDisabled, .signupDisabled, .userNotFound].contains(error.code) {
            return nil
        }
    }

    /// What a person is told for a refusal.
    static func text(_ error: AuthError) -> String {
        switch error.code {
        case .overRequestRateLimit, .overEmailSendRateLimit:
            let minutes = max(1, ((error.retryAfter ?? 60) + 59) / 60)
            return "Too many attempts. Try again in \(minutes) minute\(minutes == 1 ? "" : "s")."
        case .invalidCredentials: return "That email address and password do not match an account."
        case .otpExpired:
            switch error.reason {
            case "expired": return "That code has expired. Send a new one."
            case "exhausted": return "That code can no longer be used. Send a new one."
            default:
                if let left = error.attemptsRemaining {
                    return "That code is not right. \(left) \(left == 1 ? "try" : "tries") left."
                }
                return "That code is not right, or it has expired."
            }
        case .emailNotConfirmed: return "Confirm your email address first: sign in with an emailed code."
        case .userBanned: return "This account is suspended."
        case .webauthnVerificationFailed, .webauthnChallengeNotFound, .webauthnChallengeExpired:
            return "That passkey could not be used. Try again, or sign in another way."
        case .weakPassword:
            return "Choose a stronger password: at least the length shown, and not a common one."
        default: return error.message
        }
    }

    static func status(_ error: AuthError) -> HTTPResponse.Status {
        let status = APIErrorResponder.status(for: error)
        return status.code >= 500 ? .badRequest : status
    }
}
