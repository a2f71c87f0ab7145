import Foundation
import LatchkeyAPI

/// GoTrue's captcha (`GOTRUE_SECURITY_CAPTCHA_*`): hCaptcha or Cloudflare Turnstile, whose
/// token the client sends as `gotrue_meta_security.captcha_token` and the server checks with the
/// provider's `siteverify` endpoint before a sign-up, a password sign-in or a code is sent.
public struct CaptchaSettings: Sendable, Equatable {
    public enum Provider: String, Sendable, CaseIterable {
        case hcaptcha
        case turnstile

        /// The provider's verify endpoint, as GoTrue calls it.
        public var verifyURL: String {
            switch self {
            case .hcaptcha: "https://hcaptcha.com/siteverify"
            case .turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify"
            }
        }
    }

    public var provider: Provider
    /// The secret the provider gave the site (sent to the verify endpoint only).
    public var secret: String
    /// How long a verification may take before the request fails (GoTrue's 10 s).
    public var timeout: Duration
    /// Where tokens are verified: the provider's endpoint, or a stand-in in tests.
    public var verifyURL: String
    /// The site key the hosted pages' widget is drawn with (GoTrue has no pages, so no such
    /// setting); without it the pages cannot show a captcha and their forms are refused.
    public var siteKey: String?

    public init(provider: Provider, secret: String, timeout: Duration = .seconds(10), verifyURL: String? = nil, siteKey: String? = nil) {
        self.provider = provider
        self.secret = secret
        self.timeout = timeout
        self.verifyURL = verifyURL ?? provider.verifyURL
        self.siteKey = siteKey
    }
}

/// What a captcha provider answered: `success`, and its `error-codes` when it refused.
public struct CaptchaVerdict: Sendable, Equatable {
    public var success: Bool
    public var errorCodes: [String]

    public init(success: Bool, errorCodes: [String] = []) {
        self.success = success
        self.errorCodes = errorCodes
    }
}

/// Asks the provider about one token; throws when it cannot be asked or does not answer JSON.
public protocol CaptchaVerifying: Sendable {
    func verify(token: String, remoteIP: String) async throws -> CaptchaVerdict
}

/// The captcha check of the endpoints GoTrue guards (`/signup` including anonymous sign-ins,
/// `/token?grant_type=password`, `/otp`, `/magiclink`, `/recover`, `/resend`, passkey sign-in
/// options) and of the hosted pages' forms, with GoTrue's answers.
public struct CaptchaGate: Sendable {
    let verifier: (any CaptchaVerifying)?

    /// The gate of a server without captcha: every request passes.
    public static let off = CaptchaGate(verifier: nil)

    public init(verifier: (any CaptchaVerifying)?) {
        self.verifier = verifier
    }

    /// Whether tokens are checked.
    public var isOn: Bool { verifier != nil }

    /// The longest token passed on to the provider (Turnstile's are at most 2,048 characters,
    /// hCaptcha's a few thousand): a larger one is refused unasked.
    static let maxTokenBytes = 16_384

    /// Passes when captcha is off, or the provider accepts `token` from `client`. A missing token
    /// and a refused one are `400 captcha_failed`; a provider that cannot be asked is `500
    /// unexpected_failure`, as GoTrue answers.
    public func check(_ token: String?, client: ClientInfo) async throws {
        guard let verifier else { return }
        let token = (token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw Self.refusal("no captcha_token found") }
        guard token.utf8.count <= Self.maxTokenBytes else { throw Self.refusal("invalid-input-response") }
        let verdict: CaptchaVerdict
        do {
            verdict = try await verifier.verify(token: token, remoteIP: client.ip)
        } catch {
            throw AuthError(.unexpectedFailure, "captcha verification process failed")
        }
        guard verdict.success else {
            // The provider's codes, as GoTrue shows them; only code-shaped ones are echoed.
            let codes = verdict.errorCodes.filter { code in
                (1...64).contains(code.count) && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            }
            throw Self.refusal(codes.prefix(5).joined(separator: ", "))
        }
    }

    static func refusal(_ reason: String) -> AuthError {
        AuthError(.captchaFailed, "captcha protection: request disallowed (\(reason))")
    }
}
