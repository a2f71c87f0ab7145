import Foundation

/// A pending request of an OAuth client to act for the signed-in user, as the consent page shows
/// it (`GET /oauth/authorizations/{authorization_id}`, GoTrue's `AuthorizationDetailsResponse`).
public struct OAuthAuthorizationDetails: Codable, Sendable, Equatable {
    /// The id the consent page was opened with (`authorization_id`).
    public var authorizationID: String
    /// Where the answer goes (`redirect_uri`).
    public var redirectURI: String
    public var client: OAuthClientSummary
    public var user: OAuthAuthorizationUser
    /// The scopes asked for, separated by spaces.
    public var scope: String

    public init(
        authorizationID: String, redirectURI: String, client: OAuthClientSummary, user: OAuthAuthorizationUser, scope: String
    ) {
        self.authorizationID = authorizationID
        self.redirectURI = redirectURI
        self.client = client
        self.user = user
        self.scope = scope
    }

    /// The scopes asked for, one by one.
    public var scopes: [String] { scope.split(separator: " ").map(String.init) }

    enum CodingKeys: String, CodingKey {
        case authorizationID = "authorization_id"
        case redirectURI = "redirect_uri"
        case client, user, scope
    }
}

/// What a consent page shows of a client (GoTrue's `ClientDetailsResponse`).
public struct OAuthClientSummary: Codable, Sendable, Equatable, Identifiable {
    /// The client's id.
    public var id: String
    public var name: String
    public var uri: String
    public var logoURI: String

    public init(id: String, name: String, uri: String, logoURI: String) {
        self.id = id
        self.name = name
        self.uri = uri
        self.logoURI = logoURI
    }

    public init(from decoder: any Decoder) throws {
        // GoTrue leaves empty members out.
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        uri = try c.decodeIfPresent(String.self, forKey: .uri) ?? ""
        logoURI = try c.decodeIfPresent(String.self, forKey: .logoURI) ?? ""
    }

    enum CodingKeys: String, CodingKey {
        case id, name, uri
        case logoURI = "logo_uri"
    }
}

/// The signed-in user an authorization request would act for.
public struct OAuthAuthorizationUser: Codable, Sendable, Equatable {
    public var id: String
    public var email: String

    public init(id: String, email: String) {
        self.id = id
        self.email = email
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        email = try c.decodeIfPresent(String.self, forKey: .email) ?? ""
    }

    enum CodingKeys: String, CodingKey { case id, email }
}

/// `POST /oauth/authorizations/{authorization_id}/consent`: `approve` or `deny`.
public struct OAuthConsentRequest: Codable, Sendable, Equatable {
    public var action: String

    public init(action: String) { self.action = action }

    public static let approve = OAuthConsentRequest(action: "approve")
    public static let deny = OAuthConsentRequest(action: "deny")
}

/// Where the browser goes next: the client's redirect URI with `code` and `state`, or with
/// `error=access_denied` after a denial. `GET /oauth/authorizations/{id}` answers it instead of
/// the details when the user's earlier consent covers the request.
public struct OAuthConsentResponse: Codable, Sendable, Equatable {
    public var redirectURL: String

    public init(redirectURL: String) { self.redirectURL = redirectURL }

    enum CodingKeys: String, CodingKey { case redirectURL = "redirect_url" }
}

/// A client the user has granted scopes to (`GET /user/oauth/grants`).
public struct OAuthGrant: Codable, Sendable, Equatable {
    public var client: OAuthClientSummary
    public var scopes: [String]
    public var grantedAt: Date

    public init(client: OAuthClientSummary, scopes: [String], grantedAt: Date) {
        self.client = client
        self.scopes = scopes
        self.grantedAt = grantedAt
    }

    enum CodingKeys: String, CodingKey {
        case client, scopes
        case grantedAt = "granted_at"
    }
}

/// What `POST /oauth/token` answers a client (RFC 6749 §5.1; `id_token` with the `openid` scope).
public struct OAuthTokenResponse: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    public var refreshToken: String
    /// The granted scopes, separated by spaces.
    public var scope: String
    public var idToken: String?

    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int, refreshToken: String, scope: String, idToken: String?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
        self.idToken = idToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
        case idToken = "id_token"
    }
}
