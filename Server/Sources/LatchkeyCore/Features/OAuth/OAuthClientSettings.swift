import Foundation

/// How Latchkey sends users to a provider and back (`GET /authorize`, `/callback`): the client's
/// secret and callback URL, the scopes asked for, and the provider's quirks.
public struct OAuthClientSettings: Sendable, Equatable {
    /// The client secret the code is exchanged with.
    public enum Secret: Sendable, Equatable {
        /// As configured (`GOTRUE_EXTERNAL_<P>_SECRET`; for Apple, a client-secret JWT made elsewhere).
        case fixed(String)
        /// Apple's client secret, made and renewed by Latchkey: an ES256 JWT from the team id, the
        /// key id and the `.p8` private key (PEM).
        case apple(teamID: String, keyID: String, privateKeyPEM: String)
    }

    public var secret: Secret
    /// The callback URL registered with the provider (`GOTRUE_EXTERNAL_<P>_REDIRECT_URI`).
    public var redirectURI: String
    /// The scopes asked for by default; a request's `scopes` are added.
    public var scopes: [String]
    /// Apple answers the callback with a form post (`response_mode=form_post`) and fixes its scopes.
    public var formPost: Bool
    /// The provider takes a PKCE challenge (RFC 7636) from Latchkey.
    public var pkce: Bool
    /// A provider that is not an OpenID one (GitHub): its web and API base URLs.
    public var endpoints: (web: String, api: String)?

    public init(
        secret: Secret, redirectURI: String, scopes: [String], formPost: Bool = false, pkce: Bool = true,
        endpoints: (web: String, api: String)? = nil
    ) {
        self.secret = secret
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.formPost = formPost
        self.pkce = pkce
        self.endpoints = endpoints
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.secret == b.secret && a.redirectURI == b.redirectURI && a.scopes == b.scopes && a.formPost == b.formPost
            && a.pkce == b.pkce && a.endpoints?.web == b.endpoints?.web && a.endpoints?.api == b.endpoints?.api
    }
}
