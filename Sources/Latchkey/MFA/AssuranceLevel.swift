/// Where the session stands on multi-factor authentication, from
/// ``MFA/assuranceLevel()``.
///
/// When ``next`` is ``AAL/aal2`` and ``current`` is ``AAL/aal1``, the user has a verified factor
/// but has not used it in this session: ask for a code.
///
/// ```swift
/// let level = try await auth.mfa.assuranceLevel()
/// if level.current == .aal1 && level.next == .aal2 { showTOTPPrompt() }
/// ```
public struct AssuranceLevel: Sendable, Hashable {
    /// The level of the stored access token (its `aal` claim); `nil` when nobody is signed in
    /// or the token does not say.
    public var current: AAL?
    /// The level the user can reach: ``AAL/aal2`` when the session's user has a verified factor,
    /// else the current level (as supabase-js's `nextLevel`); `nil` when nobody is signed in.
    public var next: AAL?
    /// How the user authenticated in this session (the token's `amr` claim).
    public var currentAuthenticationMethods: [AuthenticationMethodReference]

    /// Creates a level.
    public init(current: AAL?, next: AAL?, currentAuthenticationMethods: [AuthenticationMethodReference]) {
        self.current = current
        self.next = next
        self.currentAuthenticationMethods = currentAuthenticationMethods
    }

    /// The level of `session`, read from its access token and its user's factors.
    init(session: Session) {
        let claims = AccessTokenClaims(token: session.accessToken)
        let verified = (session.user.factors ?? []).contains { $0.status == .verified }
        let current = claims?.aal.flatMap(AAL.init(rawValue:))
        self.init(
            current: current, next: verified ? .aal2 : (current ?? .aal1),
            currentAuthenticationMethods: claims?.amr ?? [])
    }
}
