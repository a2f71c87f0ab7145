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

    /// Hands a link to ``session(from:)`` without waiting; the outcome arrives on
    /// ``authStateChanges``: the session's event, or ``AuthEvent/linkFailed`` with the error.
    public nonisolated func handle(_ url: URL) {
        Task {
            do {
                _ = try await self.session(from: url)
            } catch {
                await self.emit(.linkFailed, error: error as? LatchkeyError ?? LatchkeyError.network(error))
            }
        }
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
