import Foundation

/// Where an email change stands after ``AuthClient/confirmEmailChange(email:code:)``.
public enum EmailChangeResult: Sendable {
    /// This address confirmed; the code sent to the other address is still needed.
    case waitingForOtherAddress
    /// Both confirmed: the account has the new address, and this is its session.
    case completed(Session)
}

extension AuthClient {
    /// Starts changing the signed-in user's email address. Codes and links go to the new address
    /// and (with the server's secure email change, the default) to the current one; the address
    /// changes once both are confirmed with ``confirmEmailChange(email:code:)`` or the links.
    /// Returns the user with ``User/newEmail`` set.
    @discardableResult
    public func changeEmail(to newEmail: String, redirectTo: URL? = nil) async throws -> User {
        let pkce = await newChallenge()
        let body = UpdateUserRequest(email: newEmail, codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method)
        let query = redirectQuery(redirectTo)
        let user = try await withSession { session in
            try await api.send(try api.request("PUT", "user", query: query, body: body, bearer: session.accessToken), as: User.self)
        }
        await replaceUser(user)
        return user
    }

    /// Confirms an email change with the code sent to `email` (the current or the new address).
    /// A wrong code's ``LatchkeyError/retryState`` submits the next try (its
    /// ``CodeRequired/submit(code:)`` throws ``LatchkeyError/isEmailChangePending`` when the other
    /// address has yet to confirm).
    public func confirmEmailChange(email: String, code: String) async throws -> EmailChangeResult {
        do {
            let state = resumedState(email: email, phone: nil, codeLength: code.count, purpose: .emailLink)
            return .completed(try await submitCode(code, state: state))
        } catch let error as LatchkeyError where error.isEmailChangePending {
            return .waitingForOtherAddress
        }
    }

    /// Adds an email address to a signed-in user who has none (Privy's `linkWithCode`): a code
    /// goes to the address, and ``CodeRequired/submit(code:)`` adds it, with an `email`
    /// identity. A user who has an address changes it with ``changeEmail(to:redirectTo:)``.
    public func link(email: String, redirectTo: URL? = nil) async throws -> CodeRequired {
        let session = try await session()
        guard session.user.email.isEmpty else {
            throw LatchkeyError(code: .validationFailed, message: "The user has an email address; change it with changeEmail(to:)")
        }
        let sentAt = now
        let query = redirectQuery(redirectTo)
        let user = try await withSession { session in
            try await api.send(
                try api.request("PUT", "user", query: query, body: UpdateUserRequest(email: email), bearer: session.accessToken),
                as: User.self)
        }
        await replaceUser(user)
        return codeState(
            OTPResponse(), email: user.newEmail ?? email, sentAt: sentAt, intent: .signIn, redirectTo: redirectTo, purpose: .emailLink)
    }

    /// Adds or changes the signed-in user's phone number: a code goes to the number, and
    /// ``CodeRequired/submit(code:)`` confirms it, with a `phone` identity.
    public func link(phone raw: String, channel: SMSChannel = .sms) async throws -> CodeRequired {
        let phone = try LatchkeyError.phoneNumber(raw)
        let sentAt = now
        let user = try await withSession { session in
            try await api.send(
                try api.request(
                    "PUT", "user", body: UpdateUserRequest(phone: phone, channel: channel.rawValue), bearer: session.accessToken),
                as: User.self)
        }
        await replaceUser(user)
        return codeState(
            OTPResponse(channel: channel.rawValue), email: "", phone: user.newPhoneNumber ?? E164.withPlus(phone) ?? phone, sentAt: sentAt,
            intent: .signIn,
            redirectTo: nil,
            purpose: .phoneChange)
    }

    /// Creates an account with a phone number and a password; unless the server confirms numbers
    /// itself, an SMS code is on its way: finish with ``verifyPhone(phone:code:)``.
    public func signUp(phone raw: String, password: String, data: [String: JSONValue]? = nil, channel: SMSChannel = .sms) async throws
        -> SignUpResult
    {
        let phone = try LatchkeyError.phoneNumber(raw)
        try await ready()
        let request = try api.request(
            "POST", "signup", body: SignUpRequest(phone: phone, password: password, data: data, channel: channel.rawValue))
        return try await signUpResult(api.sendRaw(request))
    }

    /// Confirms a phone number with the SMS code, and signs in.
    @discardableResult
    public func verifyPhone(phone: String, code: String) async throws -> Session {
        try await verifySMSCode(phone: phone, code: code)
    }

    /// Signs in with a phone number and a password.
    @discardableResult
    public func signIn(phone: String, password: String) async throws -> Session {
        try await passwordGrant(PasswordGrantRequest(phone: try LatchkeyError.phoneNumber(phone), password: password))
    }

    /// Stores a user the server returned into the current session.
    func replaceUser(_ user: User) async {
        if var updated = stored {
            updated.user = user
            await setSession(updated, event: .userUpdated)
        }
    }
}
