import Crypto
import Foundation
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyWebAuthn
import Testing

/// Issue #39 against a live server: a user with an authenticator app, a security key and
/// recovery codes signs in on other devices, and `AuthModel` steps each up from "needs second
/// factor" with the app's code, the key's answer, or a recovery code.
@Suite struct SDKSecondFactorTests {
    static let password = "correct horse battery staple"

    /// A security key for `example.com`: P-256, present but not verified (no PIN), counting its uses.
    final class SecurityKey: @unchecked Sendable {
        let key = P256.Signing.PrivateKey()
        let credentialID: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
        var counter: UInt32 = 0

        func authData(credential: Bool) -> [UInt8] {
            var bytes = Array(SHA256.hash(data: Array("example.com".utf8)))
            bytes.append(0x01 | (credential ? 0x40 : 0))
            bytes += withUnsafeBytes(of: counter.bigEndian, Array.init)
            if credential {
                let point = Array(key.publicKey.x963Representation)
                bytes += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID
                bytes += CBOREncoder.encode(
                    .map([
                        (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-7)), (.negative(-1), .unsigned(1)),
                        (.negative(-2), .bytes(Array(point[1..<33]))), (.negative(-3), .bytes(Array(point[33..<65]))),
                    ]))
            }
            return bytes
        }

        static func clientData(_ type: String, _ ceremony: PasskeyCeremony) -> Data {
            Data(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(Array(ceremony.challenge)))","origin":"https://example.com"}"#.utf8)
        }

        func answer(_ ceremony: PasskeyCeremony, creating: Bool) throws -> PasskeyCredential {
            counter += 1
            if creating {
                let object = CBOREncoder.encode(
                    .map([
                        (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                        (.text("authData"), .bytes(authData(credential: true))),
                    ]))
                return .registration(
                    credentialID: Data(credentialID), clientDataJSON: Self.clientData("webauthn.create", ceremony),
                    attestationObject: Data(object))
            }
            let client = Self.clientData("webauthn.get", ceremony)
            let data = authData(credential: false)
            let signature = try key.signature(for: data + Array(SHA256.hash(data: client)))
            return .assertion(
                credentialID: Data(credentialID), clientDataJSON: client, authenticatorData: Data(data),
                signature: signature.derRepresentation, userHandle: Data())
        }
    }

    @Test func theModelStepsUpWithTheAppsCodeTheKeyOrARecoveryCode() async throws {
        try await LiveServer.run(configure: {
            $0.auth.mfa.webAuthn = WebAuthnFactorSettings(enrollEnabled: true, verifyEnabled: true)
            $0.auth.passkeys.relyingParty = RelyingParty(
                id: "example.com", origins: ["https://example.com"], requireUserVerification: false)
        }) { server in
            let auth = server.client()
            _ = try await auth.signUp(email: "steps@example.com", password: Self.password)
            try await auth.verifyEmail(email: "steps@example.com", code: try await server.latestCode("steps@example.com"))
            let app = try await auth.mfa.enroll(friendlyName: "App")
            let totp = TOTP(secret: try #require(Base32.decode(app.totp.secret)))
            try await auth.mfa.challengeAndVerify(factorID: app.id, code: totp.code(step: totp.step(at: Date())))

            // The key is enrolled at aal2: the factor, its `create` challenge, the key's new credential.
            let key = SecurityKey()
            let enrolled = try await auth.mfa.enrollWebAuthn(friendlyName: "YubiKey")
            let factor = Factor(
                id: enrolled.id, friendlyName: "YubiKey", factorType: .webauthn, status: .unverified, createdAt: Date(), updatedAt: Date())
            let creating = try await auth.mfa.begin(factor)
            #expect(creating.challenge.webauthn?.type == "create" && !creating.takesCode)
            try await creating.verify(credential: try key.answer(try #require(creating.webAuthnCeremony), creating: true))
            #expect(try await auth.mfa.listFactors().webauthn.map(\.id) == [enrolled.id])
            let codes = try await auth.mfa.generateRecoveryCodes().codes

            // Another device, the app's code; a wrong one first.
            try await Self.halfway(server) { model in
                #expect(model.secondFactors.map(\.factorType) == [.totp, .webauthn])
                await #expect { try await model.verify(code: "000000") } throws: { ($0 as? LatchkeyError)?.isMFAVerificationFailed == true }
                try await model.verify(code: totp.code(step: totp.step(at: Date()) + 1))
                #expect(model.isSignedIn)
            }
            // Another, the key.
            try await Self.halfway(server) { model in
                let factor = try #require(model.secondFactors.first { $0.factorType == .webauthn })
                try await model.challenge(factor: factor)
                let pending = try #require(model.secondFactorChallenge)
                let ceremony = try #require(pending.webAuthnCeremony)
                #expect(ceremony.relyingPartyID == "example.com" && ceremony.allowedCredentialIDs == [Data(key.credentialID)])
                try await pending.verify(credential: try key.answer(ceremony, creating: false))
                let level = try await model.client.mfa.assuranceLevel()
                #expect(level.current == .aal2 && level.currentAuthenticationMethods.contains { $0.method == "mfa/webauthn" })
            }
            // Another, a recovery code; the same code a second time is refused.
            try await Self.halfway(server) { model in
                try await model.verifyRecoveryCode(codes[0].uppercased())
                #expect(model.isSignedIn)
            }
            try await Self.halfway(server) { model in
                await #expect { try await model.verifyRecoveryCode(codes[0]) } throws: {
                    ($0 as? LatchkeyError)?.isMFAVerificationFailed == true
                }
                #expect(!model.isSignedIn)
            }
        }
    }

    /// A new device signed in with the password, its model halfway in.
    @MainActor
    static func halfway(_ server: LiveServer, _ body: @MainActor (AuthModel) async throws -> Void) async throws {
        let client = server.client()
        let model = AuthModel(client: client)
        try await client.signIn(email: "steps@example.com", password: password)
        for _ in 0..<200 where !model.secondFactorsReady { try await Task.sleep(for: .milliseconds(10)) }
        guard case .needsSecondFactor = model.phase else {
            Issue.record("the phase is \(model.phase), not needsSecondFactor")
            return
        }
        try await body(model)
    }
}

extension AuthModel {
    /// Whether the sign-in reached the model.
    fileprivate var secondFactorsReady: Bool {
        if case .needsSecondFactor = phase { return true }
        return false
    }
}
