import Foundation
import LatchkeyAPI

extension AuthClient {
    /// Signs in as a new anonymous user: no email, no phone, no password (the server must allow
    /// it: `GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED`). The user's ``User/isAnonymous`` is `true`
    /// until they add an address with ``makePermanent(email:password:redirectTo:)`` or
    /// ``link(phone:channel:)``.
    ///
    /// ```swift
    /// let session = try await auth.signInAnonymously(data: ["theme": "dark"])
    /// // later, keeping everything the anonymous user made:
    /// let user = try await auth.makePermanent(email: "ada@example.com")
    /// ```
    @discardableResult
    public func signInAnonymously(data: [String: JSONValue]? = nil) async throws -> Session {
        try await ready()
        let session = try await api.send(try api.request("POST", "signup", body: SignUpRequest(data: data)), as: Session.self)
        await setSession(session, event: .signedIn)
        return session
    }

    /// Gives the signed-in anonymous user an email address (and, optionally, a password), so
    /// that they can sign in again and keep what they made.
    ///
    /// When the server confirms addresses itself the user is permanent at once and the session
    /// is refreshed, so its access token no longer says `is_anonymous`. Otherwise a code and a
    /// link go to the address and the returned user is still anonymous: confirm with
    /// ``confirmEmailChange(email:code:)``, which signs in the permanent user.
    @discardableResult
    public func makePermanent(email: String, password: String? = nil, redirectTo: URL? = nil) async throws -> User {
        let pkce = await newChallenge()
        let body = UpdateUserRequest(
            email: email, password: password, codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method)
        let query = redirectQuery(redirectTo)
        let user = try await withSession { session in
            try await api.send(try api.request("PUT", "user", query: query, body: body, bearer: session.accessToken), as: User.self)
        }
        await replaceUser(user)
        if !user.isAnonymous { _ = try await refreshSession() }
        return user
    }
}
