import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(AuthenticationServices)
    import AuthenticationServices
#endif

extension AuthClient {
    /// The URL that starts signing in with `provider` in a browser (`GET /authorize`): open it in
    /// `ASWebAuthenticationSession`, a browser tab or a web view you control, and pass the URL the
    /// browser comes back to (`redirectTo`) to ``session(from:)``. With the PKCE flow (the default)
    /// the verifier is kept for that exchange.
    ///
    /// ```swift
    /// let url = try await auth.signInWithOAuthURL(provider: .google, redirectTo: URL(string: "myapp://login")!)
    /// ```
    public func signInWithOAuthURL(provider: IDTokenProvider, redirectTo: URL? = nil, scopes: [String] = []) async throws -> URL {
        try await ready()
        var query = redirectQuery(redirectTo)
        query["provider"] = provider.rawValue
        if !scopes.isEmpty { query["scopes"] = scopes.joined(separator: ",") }
        if let pkce = await newChallenge() {
            query["code_challenge"] = pkce.challenge
            query["code_challenge_method"] = pkce.method
        }
        guard let url = try api.request("GET", "authorize", query: query).url else {
            throw LatchkeyError(code: .validationFailed, message: "Invalid server URL")
        }
        return url
    }

    /// The URL that links `provider` to the signed-in user through the browser
    /// (`GET /user/identities/authorize`, the server's manual linking); finish with
    /// ``session(from:)`` on the URL the browser comes back to.
    public func linkIdentityURL(provider: IDTokenProvider, redirectTo: URL? = nil, scopes: [String] = []) async throws -> URL {
        var query = redirectQuery(redirectTo)
        query["provider"] = provider.rawValue
        query["skip_http_redirect"] = "true"
        if !scopes.isEmpty { query["scopes"] = scopes.joined(separator: ",") }
        struct LinkURL: Decodable { var url: String }
        let answer = try await withSession { session in
            try await api.send(
                try api.request("GET", "user/identities/authorize", query: query, bearer: session.accessToken), as: LinkURL.self)
        }
        guard let url = URL(string: answer.url) else {
            throw LatchkeyError(code: .invalidResponse, message: "The server sent no provider URL")
        }
        return url
    }

    /// The signed-in user's identities (email, phone, Apple, Google, …), as the server has them now.
    public func identities() async throws -> [Identity] {
        try await user().identities ?? []
    }

    /// Unlinks one of the signed-in user's identities (never the last: the server refuses with
    /// `single_identity_not_deletable`), and refreshes the user.
    public func unlinkIdentity(_ identity: Identity) async throws {
        _ = try await withSession { session in
            try await api.send(
                try api.request("DELETE", "user/identities/\(identity.identityID.uuidString.lowercased())", bearer: session.accessToken),
                as: [String: JSONValue].self)
        }
        await replaceUser(try await user())
    }
}

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    extension AuthClient {
        /// Signs in with `provider` in `ASWebAuthenticationSession` and returns the session: the
        /// provider's page opens over the app, and its answer comes back to `callbackScheme`
        /// (`myapp` for `myapp://login`, which must be in the server's redirect allow list).
        @MainActor
        public func signInWithOAuth(
            provider: IDTokenProvider, redirectTo: URL, scopes: [String] = [],
            presentationContextProvider: any ASWebAuthenticationPresentationContextProviding
        ) async throws -> Session {
            let start = try await signInWithOAuthURL(provider: provider, redirectTo: redirectTo, scopes: scopes)
            let callback = try await Self.browse(
                start, callbackScheme: redirectTo.scheme, presentationContextProvider: presentationContextProvider)
            return try await session(from: callback)
        }

        /// Shows `url` in `ASWebAuthenticationSession` until the browser comes back to
        /// `callbackScheme`, and returns the URL it came back with. The session is kept until it
        /// ends (nothing else holds it while the sheet is up), and a cancelled task cancels it.
        @MainActor
        static func browse(
            _ url: URL, callbackScheme: String?, presentationContextProvider: any ASWebAuthenticationPresentationContextProviding
        ) async throws -> URL {
            let flow = WebAuthenticationFlow()
            do {
                return try await browse(
                    url, callbackScheme: callbackScheme, presentationContextProvider: presentationContextProvider, flow: flow)
            } catch {
                throw AppleFlowError.mapped(error)
            }
        }

        @MainActor
        private static func browse(
            _ url: URL, callbackScheme: String?, presentationContextProvider: any ASWebAuthenticationPresentationContextProviding,
            flow: WebAuthenticationFlow
        ) async throws -> URL {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                    let session = ASWebAuthenticationSession(
                        url: url, callbackURLScheme: callbackScheme, completionHandler: WebAuthenticationFlow.completion(continuation, flow)
                    )
                    flow.session = session
                    session.presentationContextProvider = presentationContextProvider
                    session.prefersEphemeralWebBrowserSession = false
                    session.start()
                }
            } onCancel: {
                Task { @MainActor in flow.session?.cancel() }
            }
        }
    }

    /// One web sign-in's session, held while the sheet is up.
    @MainActor
    final class WebAuthenticationFlow {
        var session: ASWebAuthenticationSession?

        /// The session's completion handler, made outside any actor: AuthenticationServices calls
        /// it on a queue of its own (an XPC reply queue on macOS, sometimes off the main thread on
        /// iOS), where a closure that inherited the main actor's isolation would trap.
        nonisolated static func completion(
            _ continuation: CheckedContinuation<URL, any Error>, _ flow: WebAuthenticationFlow
        ) -> ASWebAuthenticationSession.CompletionHandler {
            { url, error in
                if let url {
                    continuation.resume(returning: url)
                } else {
                    continuation.resume(throwing: error ?? LatchkeyError(code: .invalidResponse, message: "The sign-in was cancelled"))
                }
                Task { @MainActor in flow.session = nil }
            }
        }
    }
#endif
