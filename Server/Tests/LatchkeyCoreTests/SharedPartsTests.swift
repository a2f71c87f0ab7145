import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Issue #38: the shared parts the composition root makes need no `AuthStore`: over the in-memory
/// store they send a code, and with no SMS provider a text lands in the store's development
/// mailbox, as it does on the server.
@Suite struct SharedPartsTests {
    @Test func theSharedPartsRunOverTheInMemoryStore() async throws {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        var configuration = AuthConfiguration(rateLimits: .unlimited)
        configuration.sms.enabled = true
        configuration.otp.sendFrequency = 0
        configuration.sms.sendFrequency = 0
        let parts = try await SharedParts.make(
            configuration: configuration, store: store, hasher: PasswordSignInTests.CountingHasher(),
            issuer: InMemoryTokenIssuer(time: time), serverSecret: TestSessionParts.serverSecret, time: time,
            renderer: TestCodeParts.CodeRenderer())
        #expect(parts.settings.external["phone"] == true)
        let codes = OneTimeCodes(store: store, codes: parts.codes, limiter: parts.limiter, settings: OneTimeCodes.Settings(configuration))
        _ = try await codes.sendOTP(
            JSONDecoder().decode(OTPRequest.self, from: Data(#"{"phone":"+15551234567"}"#.utf8)), redirectTo: String?.none,
            client: ClientInfo(ip: "192.0.2.1"))
        let texts = try await store.mailbox(to: "15551234567", limit: 5) + store.mailbox(to: "+15551234567", limit: 5)
        #expect(texts.count == 1)
        #expect(texts.first?.message.subject == "SMS" && texts.first?.message.text.isEmpty == false)
    }
}
