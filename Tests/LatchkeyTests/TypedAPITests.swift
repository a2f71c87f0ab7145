import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// What the SDK hands the app is typed: numbers in E.164 both ways, one id type per kind,
/// factor status and kind as values, and nothing the server did not say.
@Suite struct TypedAPITests {
    @Test func phoneNumbersAreCheckedBeforeSendingAndComeBackWithTheirPlus() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: ChannelTests.smsInfo)
        let auth = try await Fixtures.client(transport: transport)
        for bad in ["", "1", "+0155512345", "555-1234", "+1 555 CALL NOW", "+1234567890123456"] {
            let error = await #expect(throws: LatchkeyError.self) { try await auth.requestSMSCode(phone: bad) }
            #expect(error?.isInvalidPhoneNumber == true && error?.code == .phoneNumberInvalid, "\(bad)")
        }
        #expect(await transport.requests.isEmpty)
        // Spaces and a missing + are forgiven, as the server forgives them; the number goes out in E.164.
        let state = try await auth.requestSMSCode(phone: "1 555 123 4567")
        #expect(state.phone == "+15551234567")
        #expect(await transport.requests.first?.json?["phone"] == "+15551234567")
        // A server refusal that merely mentions E.164 is not read as one: predicates read codes.
        #expect(!LatchkeyError(code: .validationFailed, message: "Invalid phone number format (E.164 required)").isInvalidPhoneNumber)

        let user = try WireJSON.makeDecoder().decode(
            User.self,
            from: Data(
                Fixtures.userJSON().replacingOccurrences(of: #""phone":"""#, with: #""phone":"15551234567","new_phone":"447700900123""#)
                    .utf8))
        #expect(user.phone == "15551234567" && user.phoneNumber == "+15551234567" && user.newPhoneNumber == "+447700900123")
        #expect(try Fixtures.session().user.phoneNumber == nil)
    }

    @Test func factorStatusAndKindAreValuesThatStillDecodeUnknownOnes() throws {
        let json =
            #"[{"id":"9c2f6ee4-3a4c-4a8a-9d2e-5b3a2d1c0f11","factor_type":"totp","status":"verified","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"},{"id":"0b6a39c1-8f3d-4f7e-9a55-6c1d2e3f4a5b","factor_type":"carrier_pigeon","status":"molting","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}]"#
        let factors = try WireJSON.makeDecoder().decode([Factor].self, from: Data(json.utf8))
        #expect(factors[0].status == .verified && factors[0].factorType == .totp)
        #expect(factors[1].status.rawValue == "molting" && factors[1].factorType.rawValue == "carrier_pigeon")
        #expect(FactorList(all: factors).totp.map(\.id) == [factors[0].id])
        let encoded = String(decoding: try WireJSON.makeEncoder().encode(factors[0]), as: UTF8.self)
        #expect(encoded.contains(#""status":"verified""#) && encoded.contains(#""factor_type":"totp""#))
    }

    @Test func deviceKeyAndVaultIDsAreUUIDsWrittenLowerCase() async throws {
        let id = UUID()
        let transport = MockTransport()
        await transport.respond(
            to: "GET", path: "/device-keys",
            json:
                #"{"device_keys":[{"id":"\#(id.uuidString.lowercased())","name":"Phone","public_key":{},"created_at":"2026-01-01T00:00:00Z"}]}"#
        )
        await transport.respond(to: "DELETE", path: "/device-keys/\(id.uuidString.lowercased())", status: 204, json: "")
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let keys = try await auth.deviceKeys.list()
        #expect(keys.map(\.id) == [id])
        try await auth.deviceKeys.revoke(keys[0])
        #expect(await transport.requests.last?.path == "/device-keys/\(id.uuidString.lowercased())")
        let vault = LatchkeyAPI.KeyVault(
            id: id, share: nil, failedAttempts: 0, maxAttempts: 10, locked: false, createdAt: Date(timeIntervalSince1970: 0))
        #expect(String(decoding: try WireJSON.makeEncoder().encode(vault), as: UTF8.self).contains(id.uuidString.lowercased()))
    }

    @Test func aCodeWhoseExpiryTheServerDidNotGiveSaysSo() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: "{}")
        await transport.respond(to: "POST", path: "/otp", json: CodeFlowTests.otpInfo)
        let auth = try await Fixtures.client(transport: transport)
        let gotrue = try await auth.signInWithEmailCode(email: "ada@example.com")
        #expect(!gotrue.isExpiryKnown && gotrue.expiresAt == .distantFuture && gotrue.codeLength == 6)
        let latchkey = try await auth.signInWithEmailCode(email: "ada@example.com")
        #expect(latchkey.isExpiryKnown && latchkey.codeLength == 8)
    }
}
