import Foundation

extension AuthClient {
    /// Completes a sign-in from a link that opened the app (your `redirect_to` deep link).
    ///
    /// Understands the PKCE form (`?code=…`, exchanged with the verifier this client kept), the
    /// implicit form (`#access_token=…&refresh_token=…`), errors
    /// (`#error_code=…&error_description=…`), and a verification token in the query
    /// (`?token=…&type=signup`, for links you build from the email's token).
    ///
    /// ```swift
    /// .onOpenURL { url in Task { try await auth.session(from: url) } }
    /// ```
    @discardableResult
    public func session(from url: URL) async throws -> Session {
        try await ready()
        let parameters = Self.parameters(of: url)
        if let errorCode = parameters["error_code"] ?? parameters["error"] {
            throw LatchkeyError(
                code: ErrorCode(errorCode), message: parameters["error_description"] ?? "The link could not be used")
        }
        if parameters["access_token"] == nil, let message = parameters["message"], !message.isEmpty {
            // GoTrue's redirect after the first of two email-change confirmations.
            throw LatchkeyError(code: .emailChangePending, message: message)
        }
        if let accessToken = parameters["access_token"], let refreshToken = parameters["refresh_token"] {
            let expiresIn = parameters["expires_in"].flatMap { Int($0) } ?? 3600
            let expiresAt = parameters["expires_at"].flatMap { Int($0) } ?? Int(now.timeIntervalSince1970) + expiresIn
            let user = try await api.send(try api.request("GET", "user", bearer: accessToken), as: User.self)
            let session = Session(
                accessToken: accessToken, expiresIn: expiresIn, expiresAt: expiresAt, refreshToken: refreshToken, user: user)
            await setSession(session, event: parameters["type"] == "recovery" ? .passwordRecovery : .signedIn)
            return session
        }
        if let code = parameters["code"], !code.isEmpty {
            return try await exchange(code: code)
        }
        if let token = parameters["token_hash"] ?? parameters["token"], let type = parameters["type"] {
            return try await verify(VerifyRequest(type: type, tokenHash: token), event: type == "recovery" ? .passwordRecovery : .signedIn)
        }
        throw LatchkeyError(code: .invalidLink, message: "The link carries no session, token or error")
    }

    /// Hands a link meant for sign-in to ``session(from:)`` without waiting, and returns whether
    /// it took it; the outcome arrives on ``authStateChanges``: the session's event, or
    /// ``AuthEvent/linkFailed`` with the error. Any other link (the app's own deep links, which may
    /// well carry a `?code=` or `?message=` of their own) is left alone, `false`, for the app to
    /// route:
    ///
    /// ```swift
    /// .onOpenURL { url in if !auth.handle(url) { router.open(url) } }
    /// ```
    @discardableResult
    public nonisolated func handle(_ url: URL) -> Bool {
        guard isAuthLink(url) else { return false }
        Task {
            do {
                _ = try await self.session(from: url)
            } catch {
                await self.emit(.linkFailed, error: error as? LatchkeyError ?? LatchkeyError.network(error))
            }
        }
        return true
    }

    /// Whether `url` is a sign-in link for this client: with ``Configuration/redirectURL`` set, a
    /// link under it (same scheme, host and port, its path or below) that carries a session, a
    /// code, a token or an error; without one, a link whose fragment carries a session or an
    /// error, or whose query carries a verification token (a bare `?code=` could be anybody's).
    public nonisolated func isAuthLink(_ url: URL) -> Bool {
        let parameters = Self.parameters(of: url)
        let fragment = Self.parameters(fragmentOf: url)
        let carriesSession = fragment["access_token"] != nil && fragment["refresh_token"] != nil
        let carriesError = fragment["error_code"] != nil || fragment["error"] != nil
        let carriesToken = parameters["type"] != nil && (parameters["token_hash"] ?? parameters["token"]) != nil
        guard let base = configuration.redirectURL else { return carriesSession || carriesError || carriesToken }
        guard Self.isUnder(url, base) else { return false }
        let carriesCode = parameters["code"].map { !$0.isEmpty } ?? false
        let carriesQueryError = parameters["error_code"] != nil || parameters["error"] != nil || parameters["message"] != nil
        return carriesSession || carriesError || carriesToken || carriesCode || carriesQueryError
    }

    /// Whether `url` is `base` or below it: the same scheme, host and port (case aside), and a path
    /// that is `base`'s or continues it after a `/`.
    static func isUnder(_ url: URL, _ base: URL) -> Bool {
        guard let link = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let root = URLComponents(url: base, resolvingAgainstBaseURL: false),
            link.scheme?.lowercased() == root.scheme?.lowercased(), link.host?.lowercased() == root.host?.lowercased(),
            link.port == root.port
        else { return false }
        let rootPath = root.path.hasSuffix("/") ? String(root.path.dropLast()) : root.path
        return link.path == rootPath || link.path.hasPrefix(rootPath + "/") || (rootPath.isEmpty && link.path.isEmpty)
    }

    /// The fragment's parameters alone.
    static func parameters(fragmentOf url: URL) -> [String: String] {
        guard let fragment = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedFragment else { return [:] }
        var components = URLComponents()
        components.percentEncodedQuery = fragment
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    /// Query and fragment parameters of a link, the fragment winning.
    static func parameters(of url: URL) -> [String: String] {
        var result: [String: String] = [:]
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        for item in components?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        if let fragment = components?.percentEncodedFragment {
            var fragmentComponents = URLComponents()
            fragmentComponents.percentEncodedQuery = fragment
            for item in fragmentComponents.queryItems ?? [] { result[item.name] = item.value ?? "" }
        }
        return result
    }
}
