import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices
#endif

/// A page the server hosts (`/ui/…`): sign-in, sign-up, a forgotten password, an email change's
/// code. Each ends back in the app with a code for a PKCE challenge this client made.
public enum HostedPage: String, Sendable, CaseIterable {
    case signIn = "sign-in"
    case signUp = "sign-up"
    case resetPassword = "reset"
    case confirmEmailChange = "email-change"
}

extension AuthClient {
    /// The URL of a hosted page for this client, with a new PKCE challenge (whatever the
    /// client's flow type: the pages always hand over by code). Open it in a browser; when it
    /// comes back to `redirectTo` (on the server's allow list), pass that URL to
    /// ``session(from:)``.
    public func hostedPageURL(_ page: HostedPage = .signIn, redirectTo: URL) async throws -> URL {
        try await ready()
        var query = redirectQuery(redirectTo)
        guard let pkce = await newChallenge(always: true) else {
            throw LatchkeyError(code: .validationFailed, message: "A PKCE challenge could not be made")
        }
        query["code_challenge"] = pkce.challenge
        query["code_challenge_method"] = pkce.method
        guard let url = try api.request("GET", "ui/\(page.rawValue)", query: query).url else {
            throw LatchkeyError(code: .validationFailed, message: "Invalid server URL")
        }
        return url
    }
}

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    extension AuthClient {
        /// Opens a hosted page in `ASWebAuthenticationSession` and returns the session it ends
        /// with: the server's own sign-in screen (codes, passwords, passkeys, providers), the way
        /// Auth0's Universal Login is used. `redirectTo` (a custom scheme, or an `https` universal
        /// link from iOS 17.4) brings the browser back.
        @MainActor
        @discardableResult
        public func signInWithHostedPage(
            _ page: HostedPage = .signIn, redirectTo: URL,
            presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? = nil, ephemeral: Bool = false
        ) async throws -> Session {
            let start = try await hostedPageURL(page, redirectTo: redirectTo)
            let callback = try await Self.browse(
                start, redirectTo: redirectTo, ephemeral: ephemeral,
                presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter())
            return try await session(from: callback)
        }
    }
#endif
