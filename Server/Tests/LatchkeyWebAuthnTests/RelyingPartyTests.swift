import Crypto
import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyWebAuthn

/// The relying party's checks against a virtual authenticator (a P-256 key answering as an
/// authenticator would): `none` and `packed` self-attestation accepted, every refusal the issue
/// lists refused, and the sign counter held to moving forward.
@Suite struct RelyingPartyTests {
    static let rp = RelyingParty(id: "example.com", origins: ["https://example.com", "android:apk-key-hash:abc"])

    struct Authenticator {
        let key = P256.Signing.PrivateKey()
        let credentialID = (0..<32).map { UInt8($0) }

        func authData(
            rpID: String = "example.com", flags: UInt8 = 0x05, count: UInt32 = 0, credential: Bool = false
        ) -> [UInt8] {
            var bytes = Array(SHA256.hash(data: Array(rpID.utf8)))
            bytes.append(flags | (credential ? 0x40 : 0))
            bytes += [UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
            if credential {
                bytes += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID
                bytes += CBOREncoder.encode(COSEKeyTests.es256(key.publicKey))
            }
            return bytes
        }

        static func clientData(_ type: String, _ challenge: [UInt8], origin: String = "https://example.com", cross: Bool = false)
            -> [UInt8]
        {
            Array(
                #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":\#(cross)}"#.utf8)
        }

        func register(
            challenge: [UInt8], format: String = "none", statement: CBOR? = nil, flags: UInt8 = 0x05, rpID: String = "example.com",
            origin: String = "https://example.com"
        ) throws -> (object: [UInt8], client: [UInt8]) {
            let client = Self.clientData("webauthn.create", challenge, origin: origin)
            let data = authData(rpID: rpID, flags: flags, credential: true)
            var attStmt = statement ?? .map([])
            if format == "packed", statement == nil {
                let signature = try key.signature(for: data + Array(SHA256.hash(data: client)))
                attStmt = .map([(.text("alg"), .negative(-7)), (.text("sig"), .bytes(Array(signature.derRepresentation)))])
            }
            let object = CBOREncoder.encode(
                .map([(.text("fmt"), .text(format)), (.text("attStmt"), attStmt), (.text("authData"), .bytes(data))]))
            return (object, client)
        }

        func assert(challenge: [UInt8], count: UInt32, flags: UInt8 = 0x05) throws -> (data: [UInt8], client: [UInt8], signature: [UInt8]) {
            let client = Self.clientData("webauthn.get", challenge)
            let data = authData(flags: flags, count: count)
            let signature = try key.signature(for: data + Array(SHA256.hash(data: client)))
            return (data, client, Array(signature.derRepresentation))
        }
    }

    static let challenge = Array("a challenge of thirty-two bytes!".utf8)

    @Test func noneAndPackedSelfAttestationRegister() throws {
        let device = Authenticator()
        for format in ["none", "packed"] {
            let (object, client) = try device.register(challenge: Self.challenge, format: format, flags: 0x1d)
            let made = try Self.rp.register(attestationObject: object, clientDataJSON: client, challenge: Self.challenge)
            #expect(made.credentialID == device.credentialID && made.attestationFormat == format && made.backupEligible && made.backedUp)
            #expect(made.publicKey.algorithm == -7)
        }
    }

    @Test func registrationsThatDoNotHoldAreRefused() throws {
        let device = Authenticator()
        let c = Self.challenge
        func refusal(_ make: () throws -> (object: [UInt8], client: [UInt8]), challenge: [UInt8] = Self.challenge) -> WebAuthnError? {
            do {
                let (object, client) = try make()
                _ = try Self.rp.register(attestationObject: object, clientDataJSON: client, challenge: challenge)
                return nil
            } catch { return error as? WebAuthnError }
        }
        let other = Array("another challenge, not issued...".utf8)
        #expect(
            refusal({ try device.register(challenge: c) }, challenge: other)
                == .mismatch("clientDataJSON's challenge is not the one issued"))
        #expect(
            refusal { try device.register(challenge: c, origin: "https://evil.example") }
                == .mismatch("the origin https://evil.example is not accepted"))
        #expect(
            refusal { try device.register(challenge: c, rpID: "evil.example") }
                == .mismatch("the authenticator data is for another relying party"))
        #expect(refusal { try device.register(challenge: c, flags: 0x04) } == .mismatch("the user was not present"))
        #expect(refusal { try device.register(challenge: c, flags: 0x01) } == .mismatch("the user was not verified"))
        #expect(refusal { try device.register(challenge: c, flags: 0x15) } == .malformed("backed up but not backup eligible"))
        #expect(refusal { try device.register(challenge: c, format: "tpm") } == .unsupportedAttestation("tpm"))
        #expect(
            refusal {
                try device.register(
                    challenge: c, format: "packed",
                    statement: .map([(.text("alg"), .negative(-7)), (.text("sig"), .bytes([1])), (.text("x5c"), .array([]))]))
            }
                == .unsupportedAttestation("packed with a certificate chain"))
        #expect(
            refusal {
                try device.register(
                    challenge: c, format: "packed", statement: .map([(.text("alg"), .negative(-257)), (.text("sig"), .bytes([1]))]))
            }
                == .mismatch("packed self-attestation's alg is not the credential key's"))
        #expect(
            refusal {
                try device.register(
                    challenge: c, format: "packed", statement: .map([(.text("alg"), .negative(-7)), (.text("sig"), .bytes([0x30, 0x00]))]))
            }
                == .signature)
        #expect(
            refusal { try device.register(challenge: c, format: "none", statement: .map([(.text("sig"), .bytes([1]))])) }
                == .malformed("attestation none has a statement"))
        let getData = Authenticator.clientData("webauthn.get", c)
        let (object, _) = try device.register(challenge: c)
        #expect(throws: WebAuthnError.mismatch("clientDataJSON's type is not webauthn.create")) {
            try Self.rp.register(attestationObject: object, clientDataJSON: getData, challenge: c)
        }
        let cross = Authenticator.clientData("webauthn.create", c, cross: true)
        #expect(throws: WebAuthnError.mismatch("a cross-origin ceremony")) {
            try Self.rp.register(attestationObject: object, clientDataJSON: cross, challenge: c)
        }
    }

    @Test func assertionsVerifyAndTheCounterMovesForward() throws {
        let device = Authenticator()
        let (object, client) = try device.register(challenge: Self.challenge)
        let key = try Self.rp.register(attestationObject: object, clientDataJSON: client, challenge: Self.challenge).publicKey
        let first = try device.assert(challenge: Self.challenge, count: 5)
        let result = try Self.rp.authenticate(
            authenticatorData: first.data, clientDataJSON: first.client, signature: first.signature, challenge: Self.challenge,
            publicKey: key, storedSignCount: 4)
        #expect(result.signCount == 5)
        #expect(throws: WebAuthnError.counterRegressed) {
            try Self.rp.authenticate(
                authenticatorData: first.data, clientDataJSON: first.client, signature: first.signature, challenge: Self.challenge,
                publicKey: key, storedSignCount: 5)
        }
        // Synced passkeys count nothing: 0 after 0 is fine.
        let synced = try device.assert(challenge: Self.challenge, count: 0)
        #expect(throws: Never.self) {
            try Self.rp.authenticate(
                authenticatorData: synced.data, clientDataJSON: synced.client, signature: synced.signature, challenge: Self.challenge,
                publicKey: key, storedSignCount: 0)
        }
        let forged = Authenticator()
        let theirs = try forged.assert(challenge: Self.challenge, count: 9)
        #expect(throws: WebAuthnError.signature) {
            try Self.rp.authenticate(
                authenticatorData: theirs.data, clientDataJSON: theirs.client, signature: theirs.signature, challenge: Self.challenge,
                publicKey: key, storedSignCount: 0)
        }
    }

    /// Registration authenticator data cut at every length, and every byte flipped: refused or
    /// read, never a trap.
    @Test func truncatedAndMutatedAuthenticatorDataNeverTrap() {
        let data = Authenticator().authData(credential: true)
        #expect(throws: Never.self) { try AuthenticatorData(data) }
        for length in 0..<data.count {
            #expect(throws: WebAuthnError.self) { try AuthenticatorData(Array(data.prefix(length))) }
        }
        for index in data.indices {
            var mutated = data
            mutated[index] ^= 0xff
            _ = try? AuthenticatorData(mutated)
        }
        #expect(throws: WebAuthnError.malformed("bytes after the authenticator data")) { try AuthenticatorData(data + [0]) }
    }
}
