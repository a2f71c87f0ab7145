/// A wire value from a set a newer server may extend: a value this version does not name still
/// decodes, and compares by its string.
public protocol OpenStringValue: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String {
    /// The value as the wire has it.
    init(rawValue: String)
}

extension OpenStringValue {
    /// A value from a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The wire value.
    public var description: String { rawValue }
}

/// Whether a factor counts yet (`status`).
public struct FactorStatus: OpenStringValue {
    /// The wire value, e.g. `verified`.
    public let rawValue: String
    /// A status from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A code from it was verified: the factor counts toward `aal2`.
    public static let verified: FactorStatus = "verified"
    /// Enrolled, but no code verified yet (an enrolment the user never finished).
    public static let unverified: FactorStatus = "unverified"
}

/// The kind of a factor (`factor_type`).
public struct FactorType: OpenStringValue {
    /// The wire value, e.g. `totp`.
    public let rawValue: String
    /// A kind from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An authenticator app (RFC 6238).
    public static let totp: FactorType = "totp"
    /// Codes by SMS or WhatsApp to a number of the user's.
    public static let phone: FactorType = "phone"
    /// A security key or passkey, as a second factor.
    public static let webauthn: FactorType = "webauthn"
}
