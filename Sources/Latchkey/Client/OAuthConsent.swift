import Foundation

/// The consent step of Latchkey's OAuth server, for a first-party app that is the consent page
/// (`oauth-server-authorization-path`), reached as ``AuthClient/oauth``: another application asked
/// to act for the user, and the app shows who asks and for what, then sends the user's answer.
/// The same calls as supabase-js's `auth.oauth` (`getAuthorizationDetails`,
/// `approveAuthorization`, `denyAuthorization`), and the user's grants.
///
/// ```swift
/// // The app opened at https://app.example.com/oauth/consent?authorization_id=…
/// switch try await auth.oauth.authorizationDetails(id: authorizationID) {
/// case .approved(let redirect):                  // granted before: go straight back
///     openURL(redirect)
/// case .pending(let request):                    // ask: request.client.name wants request.scopes
///     let redirect = try await auth.oauth.approve(id: authorizationID)   // or deny(id:)
///     openURL(redirect)
/// }
/// ```
public struct OAuthConsent: Sendable {
    let client: AuthClient

    /// What the consent page learns about a request it was opened with.
    public enum Authorization: Sendable, Equatable {
        /// Ask the user: the client, the scopes, the user it would act for.
        case pending(OAuthAuthorizationDetails)
        /// The user's earlier consent covers the request: send the browser here.
        case approved(URL)
    }

    /// The request `id` (the page's `authorization_id`), for the signed-in user. The first user to
    /// open a request owns it; another gets ``LatchkeyError/isOAuthAuthorizationNotFound``, as
    /// does a request that expired or was answered.
    public func authorizationDetails(id: String) async throws -> Authorization {
        let answer = try await client.sendAuthorized("GET", path(id), body: nil, as: DetailsOrRedirect.self)
        if let redirect = answer.redirectURL { return .approved(try url(redirect)) }
        guard let details = answer.details else {
            throw LatchkeyError(code: .invalidResponse, message: "The server answered neither a request nor a redirect")
        }
        return .pending(details)
    }

    /// Approves the request: the scopes are remembered for the client, and the answer is where
    /// the browser goes next (the client's redirect URI with a single-use code).
    public func approve(id: String) async throws -> URL {
        try await answer(id, .approve)
    }

    /// Denies the request: the answer is the client's redirect URI with `error=access_denied`.
    public func deny(id: String) async throws -> URL {
        try await answer(id, .deny)
    }

    /// The clients the user has granted scopes to, newest first.
    public func grants() async throws -> [OAuthGrant] {
        try await client.sendAuthorized("GET", "user/oauth/grants", body: nil, as: [OAuthGrant].self)
    }

    /// Revokes the user's grant to a client: its sessions of the user end, and it must ask again.
    public func revokeGrant(clientID: String) async throws {
        try await client.withSession { session in
            _ = try await client.api.sendRaw(
                try client.api.request("DELETE", "user/oauth/grants", query: ["client_id": clientID], bearer: session.accessToken))
        }
    }

    func answer(_ id: String, _ request: OAuthConsentRequest) async throws -> URL {
        let answer = try await client.sendAuthorized("POST", path(id) + "/consent", body: request, as: OAuthConsentResponse.self)
        return try url(answer.redirectURL)
    }

    func path(_ id: String) -> String {
        "oauth/authorizations/" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw LatchkeyError(code: .invalidResponse, message: "Not a URL: \(text)") }
        return url
    }

    /// `GET /oauth/authorizations/{id}`'s two answers.
    struct DetailsOrRedirect: Decodable, Sendable {
        var details: OAuthAuthorizationDetails?
        var redirectURL: String?

        enum CodingKeys: String, CodingKey { case redirectURL = "redirect_url" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL)
            details = redirectURL == nil ? try OAuthAuthorizationDetails(from: decoder) : nil
        }
    }
}

extension AuthClient {
    /// The consent step of Latchkey's OAuth server for an app that is its consent page, and the
    /// user's grants to other applications: ``OAuthConsent``.
    public nonisolated var oauth: OAuthConsent { OAuthConsent(client: self) }
}
