/// An authenticator assurance level: how strongly the session's user has proved who they are.
public enum AAL: String, Sendable, Hashable, Codable {
    /// One factor: a password, an emailed or texted code, a link, an OAuth provider.
    case aal1
    /// A second factor on top, e.g. a TOTP code (``MFA/challengeAndVerify(factorID:code:)``).
    case aal2
}
