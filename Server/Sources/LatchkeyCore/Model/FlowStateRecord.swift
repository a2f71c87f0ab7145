import Foundation

/// A PKCE code challenge sent with a request for a link (RFC 7636).
public struct PKCEChallenge: Sendable, Equatable {
    /// `s256` or `plain`.
    public enum Method: String, Sendable {
        case s256
        case plain
    }

    public var challenge: String
    public var method: Method

    public init(challenge: String, method: Method) {
        self.challenge = challenge
        self.method = method
    }

    /// The `S256` challenge of `verifier` (base64url of its SHA-256).
    public static func s256(of verifier: String) -> String { PKCEVerifier.s256(verifier) }

    /// Validates a request's `code_challenge` and `code_challenge_method`: both or neither; a
    /// challenge of 43–128 characters from `[A-Za-z0-9._~-]`; the method compared
    /// case-insensitively, as GoTrue does.
    public static func parse(challenge: String?, method: String?) throws -> PKCEChallenge? {
        let challenge = challenge.flatMap { $0.isEmpty ? nil : $0 }
        let method = method.flatMap { $0.isEmpty ? nil : $0 }
        guard challenge != nil || method != nil else { return nil }
        guard let challenge, let method else {
            throw AuthError.validation("PKCE flow requires code_challenge_method and code_challenge")
        }
        guard let parsed = Method(rawValue: method.lowercased()) else {
            throw AuthError.validation("code challenge method not supported")
        }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-")
        guard (43...128).contains(challenge.count), challenge.allSatisfy({ allowed.contains($0) }) else {
            throw AuthError.validation("code challenge has to be between 43 and 128 characters of [A-Za-z0-9._~-]")
        }
        return PKCEChallenge(challenge: challenge, method: parsed)
    }
}

/// A link redeemed in a browser for a PKCE client: the code the link's redirect carries, waiting
/// to be exchanged with the verifier (`POST /token?grant_type=pkce`).
public struct FlowStateRecord: Sendable, Equatable {
    public var id: UUID
    /// Hex SHA-256 of the authorization code.
    public var authCodeHash: String
    public var userID: UUID
    public var challenge: PKCEChallenge
    /// The `amr` method the eventual session gets.
    public var authenticationMethod: String
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?
    /// A session already made (a hosted page's sign-in) that the code hands to the app; `nil`:
    /// the exchange makes one.
    public var sessionID: UUID?

    public init(
        id: UUID, authCodeHash: String, userID: UUID, challenge: PKCEChallenge, authenticationMethod: String, createdAt: Date,
        expiresAt: Date, consumedAt: Date? = nil, sessionID: UUID? = nil
    ) {
        self.sessionID = sessionID
        self.id = id
        self.authCodeHash = authCodeHash
        self.userID = userID
        self.challenge = challenge
        self.authenticationMethod = authenticationMethod
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}
