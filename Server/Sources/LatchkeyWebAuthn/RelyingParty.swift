import Crypto
import Foundation
import LatchkeyAPI

/// The relying party's checks of a passkey ceremony (WebAuthn §7.1, §7.2): the client data's
/// type, challenge and origin; the authenticator data's relying-party hash and flags; attestation
/// `none` or `packed` self-attestation; the assertion's signature and sign counter.
public struct RelyingParty: Sendable {
    /// The relying party id (`GOTRUE_WEBAUTHN_RP_ID`): a domain, e.g. `example.com`.
    public var id: String
    /// Accepted origins (`GOTRUE_WEBAUTHN_RP_ORIGINS`): `https://…` web origins, and
    /// `android:apk-key-hash:…` when listed.
    public var origins: [String]
    /// Require the user-verified flag (biometrics or a PIN), not only presence.
    public var requireUserVerification: Bool

    public init(id: String, origins: [String], requireUserVerification: Bool = true) {
        self.id = id
        self.origins = origins
        self.requireUserVerification = requireUserVerification
    }

    /// A registration's new credential.
    public struct Registration: Sendable {
        public var credentialID: [UInt8]
        public var publicKey: COSEKey
        public var publicKeyBytes: [UInt8]
        public var signCount: UInt32
        public var aaguid: [UInt8]
        public var backupEligible: Bool
        public var backedUp: Bool
        /// `none` or `packed`.
        public var attestationFormat: String
    }

    /// Checks `navigator.credentials.create()`'s answer against the challenge Latchkey issued.
    public func register(attestationObject: [UInt8], clientDataJSON: [UInt8], challenge: [UInt8]) throws(WebAuthnError) -> Registration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let object: CBOR
        do {
            object = try CBORDecoder().decode(attestationObject)
        } catch {
            throw .malformed("the attestation object is not CBOR: \(error)")
        }
        guard let format = object[text: "fmt"]?.text, let statement = object[text: "attStmt"], case .map = statement,
            let authBytes = object[text: "authData"]?.bytes
        else { throw .malformed("the attestation object lacks fmt, attStmt or authData") }
        let data = try AuthenticatorData(authBytes)
        try checkAuthenticatorData(data)
        guard let credential = data.credential else { throw .malformed("a registration carries no credential") }
        switch format {
        case "none":
            guard case .map(let pairs) = statement, pairs.isEmpty else { throw .malformed("attestation none has a statement") }
        case "packed":
            guard statement[text: "x5c"] == nil else { throw .unsupportedAttestation("packed with a certificate chain") }
            guard statement[text: "alg"]?.int == credential.publicKey.algorithm, let signature = statement[text: "sig"]?.bytes else {
                throw .mismatch("packed self-attestation's alg is not the credential key's")
            }
            let signed = authBytes + Array(SHA256.hash(data: clientDataJSON))
            guard credential.publicKey.verifies(signature, over: signed) else { throw .signature }
        default:
            throw .unsupportedAttestation(format)
        }
        return Registration(
            credentialID: credential.id, publicKey: credential.publicKey, publicKeyBytes: credential.publicKeyBytes,
            signCount: data.signCount, aaguid: credential.aaguid, backupEligible: data.flags.contains(.backupEligible),
            backedUp: data.flags.contains(.backedUp), attestationFormat: format)
    }

    /// Checks `navigator.credentials.get()`'s answer: the challenge, the signature by the stored
    /// key, and a counter that moves forward (when the authenticator counts; synced passkeys
    /// report 0). Answers the new counter and the backup state.
    public func authenticate(
        authenticatorData: [UInt8], clientDataJSON: [UInt8], signature: [UInt8], challenge: [UInt8], publicKey: COSEKey,
        storedSignCount: UInt32
    ) throws(WebAuthnError) -> (signCount: UInt32, backedUp: Bool) {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData)
        try checkAuthenticatorData(data)
        guard data.credential == nil else { throw .malformed("an assertion carries a new credential") }
        guard publicKey.verifies(signature, over: authenticatorData + Array(SHA256.hash(data: clientDataJSON))) else { throw .signature }
        if data.signCount != 0 || storedSignCount != 0 {
            guard data.signCount > storedSignCount else { throw .counterRegressed }
        }
        return (data.signCount, data.flags.contains(.backedUp))
    }

    func checkAuthenticatorData(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard data.isFor(rpID: id) else { throw .mismatch("the authenticator data is for another relying party") }
        guard data.flags.contains(.userPresent) else { throw .mismatch("the user was not present") }
        if requireUserVerification, !data.flags.contains(.userVerified) { throw .mismatch("the user was not verified") }
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) {
            throw .malformed("backed up but not backup eligible")
        }
    }

    func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        guard json.count <= 4096, let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(json)) else {
            throw .malformed("clientDataJSON is not a JSON object")
        }
        guard object["type"]?.stringValue == type else { throw .mismatch("clientDataJSON's type is not \(type)") }
        guard let given = object["challenge"]?.stringValue, let bytes = Base64URL.decode(given), bytes == challenge else {
            throw .mismatch("clientDataJSON's challenge is not the one issued")
        }
        guard let origin = object["origin"]?.stringValue, origins.contains(origin) else {
            throw .mismatch("the origin \(object["origin"]?.stringValue ?? "?") is not accepted")
        }
        if object["crossOrigin"]?.boolValue == true { throw .mismatch("a cross-origin ceremony") }
    }
}
