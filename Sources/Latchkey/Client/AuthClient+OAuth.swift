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
        /// provider's page opens over the app, and its answer comes back to `redirectTo`: a custom
        /// scheme (`myapp://login`) or, from iOS 17.4 and macOS 14.4, an `https` universal link of
        /// the app's associated domains; either must be in the server's redirect allow list.
        /// `ephemeral` keeps no cookies: the user signs in to the provider afresh.
        ///
        /// In SwiftUI, ``signInWithOAuth(provider:redirectTo:scopes:using:ephemeral:)`` takes the
        /// environment's `WebAuthenticationSession` instead of a presentation context.
        @MainActor
        @discardableResult
        public func signInWithOAuth(
            provider: IDTokenProvider, redirectTo: URL, scopes: [String] = [],
            presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? = nil, ephemeral: Bool = false
        ) async throws -> Session {
            let start = try await signInWithOAuthURL(provider: provider, redirectTo: redirectTo, scopes: scopes)
            let callback = try await Self.browse(
                start, redirectTo: redirectTo, ephemeral: ephemeral,
                presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter())
            return try await session(from: callback)
        }

        /// Shows `url` in `ASWebAuthenticationSession` until the browser comes back to
        /// `redirectTo`, and returns the URL it came back with. The session is kept until it ends
        /// (nothing else holds it while the sheet is up), and a cancelled task cancels it.
        @MainActor
        static func browse(
            _ url: URL, redirectTo: URL, ephemeral: Bool = false,
            presentationContextProvider: any ASWebAuthenticationPresentationContextProviding
        ) async throws -> URL {
            let callback = try WebCallback(redirectTo)
            if let https = callback.https {
                guard #available(iOS 17.4, macOS 14.4, *) else { throw WebCallback.httpsUnavailable }
                return try await browse(url, ephemeral: ephemeral, presentationContextProvider: presentationContextProvider) {
                    ASWebAuthenticationSession(url: url, callback: .https(host: https.host, path: https.path), completionHandler: $0)
                }
            }
            return try await browse(
                url, callbackScheme: callback.scheme, ephemeral: ephemeral, presentationContextProvider: presentationContextProvider)
        }

        /// As above, coming back to `callbackScheme`.
        @MainActor
        static func browse(
            _ url: URL, callbackScheme: String?, ephemeral: Bool = false,
            presentationContextProvider: any ASWebAuthenticationPresentationContextProviding
        ) async throws -> URL {
            try await browse(url, ephemeral: ephemeral, presentationContextProvider: presentationContextProvider) {
                ASWebAuthenticationSession(url: url, callbackURLScheme: callbackScheme, completionHandler: $0)
            }
        }

        @MainActor
        private static func browse(
            _ url: URL, ephemeral: Bool, presentationContextProvider: any ASWebAuthenticationPresentationContextProviding,
            make: (@escaping ASWebAuthenticationSession.CompletionHandler) -> ASWebAuthenticationSession
        ) async throws -> URL {
            let flow = WebAuthenticationFlow()
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                        let session = make(WebAuthenticationFlow.completion(continuation, flow))
                        flow.session = session
                        // The session holds its presentation context weakly: the flow keeps it.
                        flow.presenter = presentationContextProvider
                        session.presentationContextProvider = presentationContextProvider
                        session.prefersEphemeralWebBrowserSession = ephemeral
                        session.start()
                    }
                } onCancel: {
                    Task { @MainActor in flow.session?.cancel() }
                }
            } catch {
                throw AppleFlowError.mapped(error)
            }
        }
    }

    /// Where a web sign-in comes back: a custom scheme, or an `https` universal link.
    struct WebCallback {
        var scheme: String
        var https: (host: String, path: String)?

        init(_ redirectTo: URL) throws {
            let scheme = redirectTo.scheme?.lowercased() ?? ""
            guard !scheme.isEmpty, scheme != "http" else {
                throw LatchkeyError(
                    code: .validationFailed,
                    message: "redirectTo must be a custom scheme (myapp://login) or an https universal link, not \(redirectTo)")
            }
            self.scheme = scheme
            if scheme == "https" {
                guard let host = redirectTo.host, !host.isEmpty else {
                    throw LatchkeyError(code: .validationFailed, message: "redirectTo names no host: \(redirectTo)")
                }
                https = (host, redirectTo.path.isEmpty ? "/" : redirectTo.path)
            }
        }

        static let httpsUnavailable = LatchkeyError(
            code: .validationFailed,
            message: "An https callback needs iOS 17.4, macOS 14.4 or visionOS 1.1; before them use a custom scheme")
    }

    /// One web sign-in's session, held while the sheet is up.
    @MainActor
    final class WebAuthenticationFlow {
        var session: ASWebAuthenticationSession?
        var presenter: (any ASWebAuthenticationPresentationContextProviding)?

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
