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
    /// The verified phone factors (``Factor/phone`` shows each number masked).
    public var phone: [Factor]
    /// The verified WebAuthn factors (security keys).
    public var webauthn: [Factor]

    /// Sorts `all` into the lists.
    public init(all: [Factor]) {
        self.all = all
        self.totp = all.filter { $0.factorType == .totp && $0.status == .verified }
        self.phone = all.filter { $0.factorType == .phone && $0.status == .verified }
        self.webauthn = all.filter { $0.factorType == .webauthn && $0.status == .verified }
    }
}
