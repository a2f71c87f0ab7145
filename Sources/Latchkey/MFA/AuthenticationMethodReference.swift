import Foundation

/// One way the user proved who they are in the current session: an entry of the access token's
/// `amr` claim, e.g. `password` at sign-in and `totp` after ``MFA/verify(factorID:challengeID:code:)``.
///
/// ```swift
/// let level = try await auth.mfa.assuranceLevel()
/// let usedTOTP = level.currentAuthenticationMethods.contains { $0.method == "totp" }
/// ```
public struct AuthenticationMethodReference: Sendable, Hashable {
    /// The method, e.g. `password`, `otp`, `magiclink`, `totp`, `token_refresh` (`method`).
    public var method: String
    /// When the method was used (`timestamp`); `nil` when the token does not say.
    public var timestamp: Date?

    /// Creates a reference.
    public init(method: String, timestamp: Date?) {
        self.method = method
        self.timestamp = timestamp
    }
}
