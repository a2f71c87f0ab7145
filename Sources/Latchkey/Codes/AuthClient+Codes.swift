import Foundation

extension AuthClient {
    /// Emails a one-time code that signs the user in (creating the account unless
    /// `createUser` is `false`, in which case an unknown address throws
    /// ``LatchkeyError/isUserNotFound``).
    public func signInWithEmailCode(email: String, createUser: Bool = true, redirectTo: URL? = nil) async throws -> CodeRequired {
        try await requestEmailCode(email: email, intent: createUser ? .signInOrSignUp : .signIn, data: nil, redirectTo: redirectTo)
    }

    /// Emails a one-time code that creates an account; a known address throws
    /// ``LatchkeyError/isUserAlreadyExists``.
    public func signUpWithEmailCode(email: String, data: [String: JSONValue]? = nil, redirectTo: URL? = nil) async throws
        -> CodeRequired
    {
        try await requestEmailCode(email: email, intent: .signUp, data: data, redirectTo: redirectTo)
    }

    func requestEmailCode(email: String, intent: CodeIntent, data: [String: JSONValue]?, redirectTo: URL?) async throws
        -> CodeRequired
    {
        try await ready()
        var body: OTPRequest
        switch intent {
        case .signInOrSignUp: body = OTPRequest(email: email, createUser: true, data: data)
        case .signIn: body = OTPRequest(email: email, createUser: false, intent: "signin")
        case .signUp: body = OTPRequest(email: email, createUser: true, data: data, intent: "signup")
        }
        if let pkce = await newChallenge() {
            body.codeChallenge = pkce.challenge
            body.codeChallengeMethod = pkce.method
        }
        let sentAt = now
        let info: OTPResponse
        do {
            info = try await api.send(
                try api.request("POST", "otp", query: redirectQuery(redirectTo), body: body), as: OTPResponse.self)
        } catch let error as LatchkeyError where intent == .signIn && error.code == .otpDisabled {
            // A GoTrue server says "signups not allowed" for an unknown address.
            throw LatchkeyError(code: .userNotFound, message: "User not found", status: error.status)
        }
        return CodeRequired(
            email: email, sentTo: info.sentTo ?? Self.mask(email), channel: CodeChannel(rawValue: info.channel ?? "email") ?? .email,
            codeLength: info.codeLength ?? 6, expiresAt: sentAt.addingTimeInterval(Double(info.expiresIn ?? 3600)),
            resendAvailableAt: sentAt.addingTimeInterval(Double(info.resendAfter ?? 60)), attemptsRemaining: info.maxAttempts,
            intent: intent, client: self, redirectTo: redirectTo)
    }

    func submitCode(_ code: String, state: CodeRequired) async throws -> Session {
        do {
            return try await verify(VerifyRequest(type: "email", email: state.email, token: code))
        } catch var error as LatchkeyError where error.code == .otpExpired {
            if error.codeRefusal == nil || error.codeRefusal == "invalid" {
                error.retryState = state.with(attemptsRemaining: error.attemptsRemaining)
            }
            throw error
        }
    }

    static func mask(_ email: String) -> String {
        guard let at = email.firstIndex(of: "@") else { return email }
        return "\(email[..<at].prefix(1))***\(email[at...])"
    }
}
