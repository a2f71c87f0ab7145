import Foundation

extension AuthClient {
    /// Emails a magic link (the Auth0 seed's `passwordless.start(type: .link)`), creating the
    /// account unless `createUser` is `false`.
    ///
    /// The link returns to `redirectTo` (your deep link); with PKCE, the default, only this
    /// install can finish with it (``session(from:)``). The same email carries a code, so the
    /// returned state also lets a user on another device type it in.
    ///
    /// ```swift
    /// let state = try await auth.signInWithMagicLink(email: email, redirectTo: URL(string: "myapp://auth-callback"))
    /// // .onOpenURL { url in auth.handle(url) }  — or, on another device:
    /// try await state.submit(code: typedCode)
    /// ```
    @discardableResult
    public func signInWithMagicLink(email: String, redirectTo: URL? = nil, createUser: Bool = true) async throws -> CodeRequired {
        try await requestEmailCode(email: email, intent: createUser ? .signInOrSignUp : .signIn, data: nil, redirectTo: redirectTo)
    }

    /// Starts a password reset: emails a code and a link. Either signs the user in with the
    /// ``AuthEvent/passwordRecovery`` event; then set the new password with
    /// ``updatePassword(_:currentPassword:nonce:)``.
    ///
    /// The server answers alike for unknown addresses, so this never reveals whether an account
    /// exists.
    ///
    /// ```swift
    /// let state = try await auth.resetPassword(email: email)
    /// try await state.submit(code: typedCode)
    /// try await auth.updatePassword(newPassword)
    /// ```
    @discardableResult
    public func resetPassword(email: String, redirectTo: URL? = nil) async throws -> CodeRequired {
        try await ready()
        let pkce = await newChallenge()
        let sentAt = now
        let info = try await api.send(
            try api.request(
                "POST", "recover", query: redirectQuery(redirectTo),
                body: RecoverRequest(email: email, codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method)),
            as: OTPResponse.self)
        return codeState(info, email: email, sentAt: sentAt, intent: .signIn, redirectTo: redirectTo, purpose: .recovery)
    }

    /// Sets a new password for the signed-in user. Every other session of the user ends and the
    /// user is emailed. Pass `currentPassword` when the server requires it, and `nonce` (from
    /// ``reauthenticate()``) when it asks for reauthentication.
    @discardableResult
    public func updatePassword(_ password: String, currentPassword: String? = nil, nonce: String? = nil) async throws -> User {
        try await updateUser(UserAttributes(password: password, currentPassword: currentPassword, nonce: nonce))
    }

    /// Emails the signed-in user a code to pass as `nonce` with a sensitive change, when the
    /// server requires one (``LatchkeyError/isReauthenticationNeeded``).
    public func reauthenticate() async throws {
        _ = try await withSession { session in
            try await api.sendRaw(try api.request("GET", "reauthenticate", bearer: session.accessToken))
        }
    }

    /// Deletes the signed-in user's account and everything that belongs to it on the server
    /// (`DELETE /user`, a Latchkey extension), then signs out on this device and forgets its
    /// device key: what the App Store asks of apps that create accounts.
    ///
    /// The server wants a recent sign-in: within five minutes of it, call this as it is; later it
    /// answers ``LatchkeyError/isReauthenticationNeeded``: call ``reauthenticate()`` (the user
    /// gets a code by email or SMS) and pass the code as `nonce`. A user with a second factor
    /// needs an `aal2` session.
    public func deleteAccount(nonce: String? = nil) async throws {
        _ = try await withSession { session in
            try await api.sendRaw(try api.request("DELETE", "user", body: DeleteAccountRequest(nonce: nonce), bearer: session.accessToken))
        }
        await forgetDeletedAccount()
    }
}
