import Foundation

/// A provider whose id tokens the server accepts: `apple`, `google`, `azure`, `keycloak`, or a
/// custom OpenID provider the operator added (`custom:<name>`).
public struct IDTokenProvider: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Sign in with Apple.
    public static let apple = IDTokenProvider(rawValue: "apple")
    /// Google Sign-In.
    public static let google = IDTokenProvider(rawValue: "google")
    /// Microsoft Entra ID.
    public static let azure = IDTokenProvider(rawValue: "azure")
    /// A Keycloak realm.
    public static let keycloak = IDTokenProvider(rawValue: "keycloak")
    /// A custom OpenID provider the operator added.
    public static func custom(_ name: String) -> IDTokenProvider { IDTokenProvider(rawValue: "custom:" + name) }
}

extension AuthClient {
    /// Signs in with an OpenID Connect id token the provider's own SDK gave the app (Google
    /// Sign-In, Sign in with Apple through `ASAuthorizationAppleIDProvider`, MSAL, …).
    ///
    /// Pass the raw `nonce` whose SHA-256 (hex) the app gave the provider, and the provider's
    /// `accessToken` when it issued one (it is checked against the token's `at_hash`). `data`
    /// goes into a new user's metadata: Sign in with Apple tells the app the user's name only on
    /// the first sign-in. `authorizationCode` (Sign in with Apple's) lets the server keep Apple's
    /// refresh token and revoke it when the account is deleted, as Apple requires;
    /// ``signInWithApple(presentationContextProvider:)`` sends it.
    ///
    /// ```swift
    /// let session = try await auth.signInWithIdToken(provider: .google, idToken: result.idToken, nonce: rawNonce)
    /// ```
    @discardableResult
    public func signInWithIdToken(
        provider: IDTokenProvider, idToken: String, accessToken: String? = nil, nonce: String? = nil,
        data: [String: JSONValue]? = nil, authorizationCode: String? = nil
    ) async throws -> Session {
        try await ready()
        let body = IDTokenGrantRequest(
            provider: provider.rawValue, idToken: idToken, accessToken: accessToken, nonce: nonce, data: data,
            authorizationCode: authorizationCode)
        let session = try await api.send(try api.request("POST", "token", query: ["grant_type": "id_token"], body: body), as: Session.self)
        await setSession(session, event: .signedIn)
        return session
    }

    /// Links a provider's identity, proved by its id token, to the signed-in user, who can then
    /// sign in with either. An anonymous user becomes permanent (with the provider's address,
    /// when the provider vouches for it). Throws ``LatchkeyError`` with code
    /// `identity_already_exists` when the identity belongs to someone.
    @discardableResult
    public func linkIdentity(provider: IDTokenProvider, idToken: String, accessToken: String? = nil, nonce: String? = nil)
        async throws -> Session
    {
        let body = IDTokenGrantRequest(
            provider: provider.rawValue, idToken: idToken, accessToken: accessToken, nonce: nonce, linkIdentity: true)
        let session = try await withSession { session in
            try await api.send(
                try api.request("POST", "token", query: ["grant_type": "id_token"], body: body, bearer: session.accessToken),
                as: Session.self)
        }
        await setSession(session, event: .userUpdated)
        return session
    }
}
