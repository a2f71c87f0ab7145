import Crypto

/// An authenticator's data (WebAuthn §6.1): the relying party's id hash, the flags, the sign
/// counter and, at registration, the new credential with its public key.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        /// The credential may be synced (a passkey in iCloud Keychain, Google Password Manager).
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential a registration made.
    public struct AttestedCredential: Sendable {
        public var aaguid: [UInt8]
        public var id: [UInt8]
        public var publicKey: COSEKey
        /// The key's COSE bytes, as stored.
        public var publicKeyBytes: [UInt8]
    }

    public var rpIDHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    public var credential: AttestedCredential?
    /// The bytes as received: what signatures cover.
    public var raw: [UInt8]

    /// Reads `bytes` strictly: the attested credential exactly when its flag is set, a valid COSE
    /// key, extensions (a CBOR map) exactly when their flag is set, nothing after them.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data shorter than 37 bytes") }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .malformed("attested credential data is truncated") }
            let aaguid = Array(bytes[offset..<(offset + 16)])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length >= 16, length <= 1023, bytes.count >= offset + length else {
                throw .malformed("the credential id length is invalid")
            }
            let id = Array(bytes[offset..<(offset + length)])
            offset += length
            let item: CBOR
            let used: Int
            do {
                (item, used) = try CBORDecoder().decodePrefix(bytes[offset...])
            } catch {
                throw .malformed("the credential public key is not CBOR: \(error)")
            }
            let key: COSEKey
            do {
                key = try COSEKey(item)
            } catch {
                throw .unsupportedKey("\(error)")
            }
            credential = AttestedCredential(
                aaguid: aaguid, id: id, publicKey: key, publicKeyBytes: Array(bytes[offset..<(offset + used)]))
            offset += used
        } else {
            credential = nil
        }
        if flags.contains(.extensionData) {
            do {
                let (item, used) = try CBORDecoder().decodePrefix(bytes[offset...])
                guard case .map = item else { throw WebAuthnError.malformed("extensions are not a map") }
                offset += used
            } catch let error as WebAuthnError {
                throw error
            } catch {
                throw .malformed("extensions are not CBOR")
            }
        }
        guard offset == bytes.count else { throw .malformed("bytes after the authenticator data") }
    }

    /// Whether the data names `rpID`.
    public func isFor(rpID: String) -> Bool {
        Array(SHA256.hash(data: Array(rpID.utf8))) == rpIDHash
    }
}

/// Why a WebAuthn ceremony is refused: a stable reason for the audit log and a clear message.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupportedKey(String)
    case unsupportedAttestation(String)
    case mismatch(String)
    case signature
    case counterRegressed

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed: \(detail)"
        case .unsupportedKey(let detail): "unsupported key: \(detail)"
        case .unsupportedAttestation(let format): "attestation format \(format) is not accepted (none, or packed self-attestation)"
        case .mismatch(let detail): "mismatch: \(detail)"
        case .signature: "the signature does not verify"
        case .counterRegressed: "the sign counter went back: a cloned authenticator?"
        }
    }
}
