import Foundation

extension AuthClient {
    /// Creates an account with an email address and a password.
    ///
    /// When the server confirms addresses itself the result is ``SignUpResult/signedIn(_:)``;
    /// otherwise ``SignUpResult/verificationRequired(_:)`` (Openfort's `action == "verify_email"`)
    /// and an email with a link and a code is on its way.
    ///
    /// ```swift
    /// let result = try await auth.signUp(email: email, password: password, data: ["name": "Ada"])
    /// if result.action == "verify_email" { showCodeEntry() }
    /// ```
    public func signUp(
        email: String, password: String, data: [String: JSONValue]? = nil, redirectTo: URL? = nil
    ) async throws -> SignUpResult {
        try await ready()
        let pkce = await newChallenge()
        let request = try api.request(
            "POST", "signup", query: redirectQuery(redirectTo),
            body: SignUpRequest(
                email: email, password: password, data: data, codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method))
        return try await signUpResult(api.sendRaw(request))
    }

    /// Reads a sign-up answer: a session (signed in) or a user still to verify.
    func signUpResult(_ data: Data) async throws -> SignUpResult {
        let decoder = WireJSON.makeDecoder()
        if let session = try? decoder.decode(Session.self, from: data) {
            await setSession(session, event: .signedIn)
            return .signedIn(session)
        }
        guard let user = try? decoder.decode(User.self, from: data) else {
            throw LatchkeyError(code: .invalidResponse, message: "Unexpected answer to sign-up")
        }
        return .verificationRequired(user)
    }

    /// Sends the address a new verification email (link and code).
    public func requestEmailVerification(email: String, redirectTo: URL? = nil) async throws {
        _ = try await resendConfirmation(email: email, redirectTo: redirectTo)
    }

    /// `POST /resend` type `signup`: the state the new confirmation code is submitted from.
    func resendConfirmation(email: String, redirectTo: URL?) async throws -> CodeRequired {
        try await ready()
        let pkce = await newChallenge()
        let sentAt = now
        let info = try await api.send(
            try api.request(
                "POST", "resend", query: redirectQuery(redirectTo),
                body: ResendRequest(type: "signup", email: email, codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method)),
            as: OTPResponse.self)
        return codeState(info, email: email, sentAt: sentAt, intent: .signUp, redirectTo: redirectTo, purpose: .confirmation)
    }

    /// Verifies an address with the token from a verification link that opened the app, and
    /// signs in.
    @discardableResult
    public func verifyEmail(token: String) async throws -> Session {
        try await verify(VerifyRequest(type: "signup", tokenHash: token))
    }

    /// Verifies an address with the code from the sign-up confirmation email, and signs in
    /// (`type` `signup`; a sign-in code is ``verifyEmailCode(email:code:)``). A wrong code's
    /// ``LatchkeyError/retryState`` submits the next try.
    @discardableResult
    public func verifyEmail(email: String, code: String) async throws -> Session {
        try await submitCode(code, state: resumedState(email: email, phone: nil, codeLength: code.count, purpose: .confirmation))
    }

    /// Signs in with an email address and a password.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> Session {
        try await passwordGrant(PasswordGrantRequest(email: email, password: password))
    }

    /// `POST /token?grant_type=password`, signing in with the answer.
    func passwordGrant(_ body: PasswordGrantRequest) async throws -> Session {
        try await ready()
        let session = try await api.send(try api.request("POST", "token", query: ["grant_type": "password"], body: body), as: Session.self)
        await setSession(session, event: .signedIn)
        return session
    }

    /// `POST /verify`, signing in with the answer; the first of two email-change confirmations
    /// throws ``LatchkeyError/isEmailChangePending``.
    func verify(_ body: VerifyRequest, event: AuthEvent = .signedIn) async throws -> Session {
        try await ready()
        let data = try await api.sendRaw(try api.request("POST", "verify", body: body))
        let decoder = WireJSON.makeDecoder()
        guard let session = try? decoder.decode(Session.self, from: data) else {
            if let pending = try? decoder.decode(EmailChangePending.self, from: data) {
                throw LatchkeyError(code: .emailChangePending, message: pending.msg)
            }
            throw LatchkeyError(code: .invalidResponse, message: "The server's answer to POST /verify is not a session")
        }
        await setSession(session, event: event)
        return session
    }

    func redirectQuery(_ redirectTo: URL?) -> [String: String] {
        (redirectTo ?? configuration.redirectURL).map { ["redirect_to": $0.absoluteString] } ?? [:]
    }
}
