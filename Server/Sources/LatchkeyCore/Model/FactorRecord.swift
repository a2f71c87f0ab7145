import Foundation
import LatchkeyAPI

/// A second factor a user enrolled: a TOTP authenticator app, a phone, or a WebAuthn key.
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
    /// The time step of the last code accepted: a code is good once. A WebAuthn factor's: the
    /// authenticator's counter at its last use (0 for authenticators that do not count).
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
    /// A WebAuthn factor's key, once its first verification registered one.
    public var webAuthn: WebAuthnFactorCredential?

    public init(
        id: UUID, userID: UUID, friendlyName: String?, factorType: String = "totp", status: Status = .unverified, sealedSecret: String,
        lastUsedStep: Int64? = nil, failedAttempts: Int = 0, lockedUntil: Date? = nil, createdAt: Date, updatedAt: Date,
        lastChallengedAt: Date? = nil, phone: String? = nil, webAuthn: WebAuthnFactorCredential? = nil
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
        self.webAuthn = webAuthn
    }

    /// The `amr` method a verification of this factor adds to its session: `totp`, or GoTrue's
    /// `mfa/phone` and `mfa/webauthn`.
    public var amrMethod: String {
        switch factorType {
        case "phone": "mfa/phone"
        case "webauthn": "mfa/webauthn"
        default: "totp"
        }
    }

    /// Every `amr` method a factor adds: removing a verified factor takes them off `aal2` sessions.
    public static let amrMethods: Set<String> = ["totp", "mfa/phone", "mfa/webauthn"]

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

/// The key a WebAuthn factor's first verification registered (a security key, or a platform
/// authenticator): stored as one JSON column, its credential id also in a column of its own,
/// unique. Its counter is the factor's ``FactorRecord/lastUsedStep``, which verifications are
/// written on the precondition of.
public struct WebAuthnFactorCredential: Sendable, Equatable {
    public var credentialID: [UInt8]
    /// The COSE public key, as registered.
    public var publicKey: [UInt8]
    public var aaguid: [UInt8]
    /// How the browser said it reaches the key (`usb`, `nfc`, `ble`, `internal`, `hybrid`).
    public var transports: [String]
    /// `none` or `packed`.
    public var attestationFormat: String

    public init(
        credentialID: [UInt8], publicKey: [UInt8], aaguid: [UInt8], transports: [String], attestationFormat: String
    ) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.aaguid = aaguid
        self.transports = transports
        self.attestationFormat = attestationFormat
    }

    /// The credential id as its column holds it (base64url).
    public var storedID: String { Base64URL.encode(credentialID) }

    /// The JSON text of the column.
    public var stored: String {
        JSONText.encode([
            "credential_id": .string(storedID), "public_key": .string(Base64URL.encode(publicKey)),
            "aaguid": .string(Base64URL.encode(aaguid)),
            "transports": .array(transports.map(JSONValue.string)), "attestation": .string(attestationFormat),
        ]) ?? "{}"
    }

    /// The credential of a stored column; `nil` when the text is not one.
    public init?(stored text: String) {
        guard let object = JSONText.decodeObject(text), let id = object["credential_id"]?.stringValue.flatMap({ Base64URL.decode($0) }),
            let key = object["public_key"]?.stringValue.flatMap({ Base64URL.decode($0) }),
            let aaguid = object["aaguid"]?.stringValue.flatMap({ Base64URL.decode($0) })
        else { return nil }
        self.init(
            credentialID: id, publicKey: key, aaguid: aaguid,
            transports: object["transports"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            attestationFormat: object["attestation"]?.stringValue ?? "none")
    }
}
