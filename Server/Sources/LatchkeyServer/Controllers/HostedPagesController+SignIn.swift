import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The sign-in and sign-up forms: an emailed code or link, a password, a passkey, a new account.
extension HostedPagesController {
    func registerSignIn(_ routes: inout RouteRegistrar) {
        routes.on(.post, "/ui/code") { request, context in
            try await post(request, context) { form in
                do {
                    try await checkCaptcha(form, context)
                    try await sendCode(to: form.email, flow: form.flow, link: false, client: context.client)
                } catch let error as AuthError {
                    // An address that cannot be used, too many tries, or no captcha, stays on the address's page.
                    let early = [.overRequestRateLimit, .validationFailed, .emailAddressInvalid, .captchaFailed].contains(error.code)
                    return show(early ? "sign-in" : "code", form, error: error)
                }
                return show("code", form)
            }
        }
        routes.on(.post, "/ui/magic-link") { request, context in
            try await post(request, context) { form in
                do {
                    try await checkCaptcha(form, context)
                    try await sendCode(to: form.email, flow: form.flow, link: true, client: context.client)
                } catch let error as AuthError {
                    return show("sign-in", form, error: error)
                }
                return show("check-email", form)
            }
        }
        routes.on(.post, "/ui/verify-code") { request, context in
            try await post(request, context) { form in
                do {
                    let outcome = try await useCases.verification.verify(
                        VerifyRequest(type: "email", email: form.email, token: form.code), client: context.client)
                    guard case .session(let session, _) = outcome else { throw AuthError.otpInvalid }
                    return try await finish(session, method: "otp", flow: form.flow)
                } catch let error as AuthError {
                    return show("code", form, error: error)
                }
            }
        }
        routes.on(.post, "/ui/password") { request, context in
            try await post(request, context) { form in
                do {
                    try await checkCaptcha(form, context)
                    let session = try await useCases.passwordSignIn.signIn(
                        PasswordGrantRequest(email: form.email, password: form.fields["password"] ?? ""), client: context.client)
                    return try await finish(session, method: "password", flow: form.flow)
                } catch let error as AuthError {
                    return show("sign-in", form, values: ["password_open": true], error: error)
                }
            }
        }
        routes.on(.post, "/ui/sign-up") { request, context in
            try await post(request, context) { form in
                do {
                    try await checkCaptcha(form, context)
                    let made = try await useCases.signUp.signUp(
                        SignUpRequest(email: form.email, password: form.fields["password"] ?? ""), redirectTo: form.flow.redirectTo,
                        client: context.client)
                    if case .session(let session) = made { return try await finish(session, method: "password", flow: form.flow) }
                    return show("code", form)
                } catch let error as AuthError {
                    return show("sign-up", form, error: error)
                }
            }
        }
        routes.on(.post, "/ui/passkey") { request, context in
            try await post(request, context) { form in
                do {
                    let session = try await useCases.passkeys.signIn(
                        PasskeyVerifyRequest(challengeID: form.fields["challenge_id"], credential: try Self.credential(form)),
                        client: context.client)
                    return try await finish(session, method: "passkey", flow: form.flow)
                } catch let error as AuthError {
                    return show("sign-in", form, error: error)
                }
            }
        }
    }

    /// The credential JSON a passkey form carries.
    static func credential(_ form: PostedForm) throws -> PasskeyCredential {
        do {
            return try JSONDecoder().decode(PasskeyCredential.self, from: Data((form.fields["credential"] ?? "").utf8))
        } catch {
            throw Passkeys.invalidCredential
        }
    }

    /// Sends a sign-in code (or a link carrying the app's PKCE challenge). Unknown addresses get
    /// the same page as known ones: with sign-ups on, the code makes the account; with them off,
    /// the refusal is not shown, so the page never tells whether an address has an account. The
    /// per-address cooldown is not shown either (only a known address has one): a code went to
    /// that address moments ago, and the page says to check the inbox, as for any address.
    func sendCode(to email: String, flow: HostedFlow, link: Bool, client: ClientInfo) async throws {
        var request = OTPRequest(email: email, createUser: !options.disableSignup)
        if link {
            request.codeChallenge = flow.codeChallenge
            request.codeChallengeMethod = flow.codeChallengeMethod
        }
        do {
            _ = try await useCases.codes.sendOTP(request, redirectTo: flow.redirectTo, client: client)
        } catch let error as AuthError
            where [.otpDisabled, .signupDisabled, .userNotFound, .overEmailSendRateLimit].contains(error.code)
        {
            // Said for unknown addresses only (or, the cooldown, for known ones only): the page stays the same.
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
        case .mfaVerificationFailed:
            if error.message.hasPrefix("WebAuthn") { return "That security key was not accepted. Try again, or use a recovery code." }
            if let left = error.attemptsRemaining {
                return "That code is not right. \(left) \(left == 1 ? "try" : "tries") left, or use a recovery code."
            }
            return "That code is not right. Try again, or use a recovery code."
        case .mfaChallengeExpired: return "That code has expired. Send a new one, or use a recovery code."
        case .webauthnVerificationFailed, .webauthnChallengeNotFound, .webauthnChallengeExpired:
            return "That passkey could not be used. Try again, or sign in another way."
        case .weakPassword:
            return "Choose a stronger password: at least the length shown, and not a common one."
        case .captchaFailed: return "Complete the check that you are not a robot, then try again."
        default: return error.message
        }
    }

    static func status(_ error: AuthError) -> HTTPResponse.Status {
        let status = APIErrorResponder.status(for: error)
        return status.code >= 500 ? .badRequest : status
    }
}
