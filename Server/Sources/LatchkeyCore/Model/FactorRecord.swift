import Foundation
import LatchkeyAPI

/// A second factor a user enrolled: for now a TOTP authenticator app.
public struct FactorRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case unverified, verified
    }

    public var id: UUID
    public var userID: UUID
    public var friendlyName: String?
    public var factorType: String
    public var status: Status
    /// The TOTP secret, sealed under the server secret.
    public var sealedSecret: String
    /// The time step of the last code accepted: a code is good once.
    public var lastUsedStep: Int64?
    /// Wrong codes since the last right one.
    public var failedAttempts: Int
    /// Until when the factor refuses codes after too many wrong ones.
    public var lockedUntil: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastChallengedAt: Date?
    /// A phone factor's number (E.164 digits without `+`); `nil` for other types.
    public var phone: String?

    public init(
        id: UUID, userID: UUID, friendlyName: String?, factorType: String = "totp", status: Status = .unverified, sealedSecret: String,
        lastUsedStep: Int64? = nil, failedAttempts: Int = 0, lockedUntil: Date? = nil, createdAt: Date, updatedAt: Date,
        lastChallengedAt: Date? = nil, phone: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.sealedSecret = sealedSecret
        self.lastUsedStep = lastUsedStep
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastChallengedAt = lastChallengedAt
        self.phone = phone
    }

    /// The `amr` method a verification of this factor adds to its session: `totp`, or GoTrue's
    /// `mfa/phone`.
    public var amrMethod: String { factorType == "phone" ? "mfa/phone" : "totp" }

    /// Every `amr` method a factor adds: removing a verified factor takes them off `aal2` sessions.
    public static let amrMethods: Set<String> = ["totp", "mfa/phone"]

    /// The factor as the API shows it: a phone factor's number masked but for its last four
    /// digits.
    public var wire: Factor {
        Factor(
            id: id, friendlyName: friendlyName, factorType: FactorType(rawValue: factorType),
            status: FactorStatus(rawValue: status.rawValue), createdAt: createdAt, updatedAt: updatedAt,
            lastChallengedAt: lastChallengedAt, phone: phone.map(Codes.masked(phone:)))
    }
}

/// An open challenge of a factor: the code verified against it must come from the same address
/// before it expires.
public struct FactorChallengeRecord: Sendable, Equatable {
    public var id: UUID
    public var factorID: UUID
    public var ip: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// A phone factor's challenge: the hash of the code sent (``OneTimeSecrets/codeHash(_:userID:)``).
    public var codeHash: String?

    public init(id: UUID, factorID: UUID, ip: String?, createdAt: Date, expiresAt: Date, codeHash: String? = nil) {
        self.id = id
        self.factorID = factorID
        self.ip = ip
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.codeHash = codeHash
    }
}
