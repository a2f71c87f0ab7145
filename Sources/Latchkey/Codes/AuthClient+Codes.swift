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
        return codeState(info, email: email, sentAt: sentAt, intent: intent, redirectTo: redirectTo)
    }

    /// Texts a one-time code that signs the user in (creating the account unless `createUser`
    /// is `false`, in which case an unknown number throws ``LatchkeyError/isUserNotFound``).
    /// The number is E.164 (`+15551234567`).
    public func requestSMSCode(phone: String, createUser: Bool = true, channel: SMSChannel = .sms) async throws -> CodeRequired {
        try await requestSMSCode(phone: phone, intent: createUser ? .signInOrSignUp : .signIn, data: nil, channel: channel)
    }

    /// Texts a one-time code that creates an account; a known number throws
    /// ``LatchkeyError/isUserAlreadyExists``.
    public func signUpWithSMSCode(phone: String, data: [String: JSONValue]? = nil, channel: SMSChannel = .sms) async throws -> CodeRequired
    {
        try await requestSMSCode(phone: phone, intent: .signUp, data: data, channel: channel)
    }

    func requestSMSCode(phone raw: String, intent: CodeIntent, data: [String: JSONValue]?, channel: SMSChannel) async throws -> CodeRequired
    {
        let phone = try LatchkeyError.phoneNumber(raw)
        try await ready()
        var body: OTPRequest
        switch intent {
        case .signInOrSignUp: body = OTPRequest(phone: phone, createUser: true, data: data)
        case .signIn: body = OTPRequest(phone: phone, createUser: false, intent: "signin")
        case .signUp: body = OTPRequest(phone: phone, createUser: true, data: data, intent: "signup")
        }
        body.channel = channel.rawValue
        let sentAt = now
        let info: OTPResponse
        do {
            info = try await api.send(try api.request("POST", "otp", body: body), as: OTPResponse.self)
        } catch let error as LatchkeyError where intent == .signIn && error.code == .otpDisabled {
            throw LatchkeyError(code: .userNotFound, message: "User not found", status: error.status)
        }
        return codeState(info, email: "", phone: phone, sentAt: sentAt, intent: intent, redirectTo: nil)
    }

    /// The state a code request's answer describes. What the server does not say (GoTrue's `{}`,
    /// or `PUT /user`'s answer, a user) is not made up: the expiry is unknown
    /// (`Date.distantFuture`, ``CodeRequired/isExpiryKnown`` `false`); the length and resend
    /// wait are GoTrue's defaults, 6 digits and 60 s.
    func codeState(
        _ info: OTPResponse, email: String, phone: String? = nil, sentAt: Date, intent: CodeIntent, redirectTo: URL?,
        purpose: CodeRequired.Purpose = .signIn
    ) -> CodeRequired {
        let fallbackChannel: CodeChannel = phone == nil ? .email : .sms
        return CodeRequired(
            email: email, phone: phone, sentTo: info.sentTo ?? phone ?? Self.mask(email),
            channel: info.channel.flatMap(CodeChannel.init(rawValue:)) ?? fallbackChannel, codeLength: info.codeLength ?? 6,
            expiresAt: info.expiresIn.map { sentAt.addingTimeInterval(Double($0)) } ?? .distantFuture,
            resendAvailableAt: sentAt.addingTimeInterval(Double(info.resendAfter ?? 60)), attemptsRemaining: info.maxAttempts,
            intent: intent, client: self, redirectTo: redirectTo, purpose: purpose)
    }

    func submitCode(_ code: String, state: CodeRequired) async throws -> Session {
        let request =
            state.phone.map { VerifyRequest(type: state.verificationType, phone: $0, token: code) }
            ?? VerifyRequest(type: state.verificationType, email: state.email, token: code)
        let event: AuthEvent =
            switch state.purpose {
            case .signIn, .confirmation: .signedIn
            case .recovery: .passwordRecovery
            case .phoneChange, .emailLink: .userUpdated
            }
        do {
            return try await verify(request, event: event)
        } catch var error as LatchkeyError where error.code == .otpExpired {
            // A server that does not say why (GoTrue answers wrong and expired codes alike) is
            // read by the code's expiry.
            let refusal = error.codeRefusal ?? (now >= state.expiresAt ? .expired : .invalid)
            error.codeRefusal = refusal
            if refusal == .invalid { error.retryState = state.with(attemptsRemaining: error.attemptsRemaining) }
            throw error
        }
    }

    /// Signs in with a code emailed by ``signInWithEmailCode(email:createUser:redirectTo:)`` when
    /// its ``CodeRequired`` is gone (the app was relaunched and did not keep it): the same
    /// request, `type` `email`. A wrong code's ``LatchkeyError/retryState`` knows only the
    /// address (its expiry is unknown: `Date.distantFuture`).
    @discardableResult
    public func verifyEmailCode(email: String, code: String) async throws -> Session {
        try await submitCode(code, state: resumedState(email: email, phone: nil, codeLength: code.count, purpose: .signIn))
    }

    /// Signs in with a texted code (``requestSMSCode(phone:createUser:channel:)``) without its
    /// ``CodeRequired``: `type` `sms`.
    @discardableResult
    public func verifySMSCode(phone: String, code: String) async throws -> Session {
        try await submitCode(
            code, state: resumedState(email: "", phone: try LatchkeyError.phoneNumber(phone), codeLength: code.count, purpose: .signIn))
    }

    /// A state for a code whose request this client did not see: only the address is known.
    func resumedState(email: String, phone: String?, codeLength: Int, purpose: CodeRequired.Purpose) -> CodeRequired {
        CodeRequired(
            email: email, phone: phone, sentTo: phone ?? Self.mask(email), channel: phone == nil ? .email : .sms,
            codeLength: max(1, codeLength), expiresAt: .distantFuture, resendAvailableAt: now, attemptsRemaining: nil,
            intent: .signInOrSignUp, client: self, redirectTo: nil, purpose: purpose)
    }

    static func mask(_ email: String) -> String {
        guard let at = email.firstIndex(of: "@") else { return email }
        return "\(email[..<at].prefix(1))***\(email[at...])"
    }
}
