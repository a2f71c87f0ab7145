/// The signed-in user's factors, from ``MFA/listFactors()``.
///
/// ```swift
/// let factors = try await auth.mfa.listFactors()
/// if factors.totp.isEmpty { offerTOTPEnrollment() }
/// ```
public struct FactorList: Sendable, Equatable {
    /// Every factor, unverified ones included (an enrolment the user never finished).
    public var all: [Factor]
    /// The verified TOTP factors: the ones a user can verify a code with.
    public var totp: [Factor]

    /// Sorts `all` into the lists.
    public init(all: [Factor]) {
        self.all = all
        self.totp = all.filter { $0.factorType == Self.totpType && $0.status == Self.verified }
    }

    /// A factor's `status` once the user has verified a code with it.
    static let verified = "verified"
    /// A TOTP factor's `factor_type`.
    static let totpType = "totp"
}
