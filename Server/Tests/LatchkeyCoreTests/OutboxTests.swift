import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

@Suite struct OutboxTests {
    @Test func sealedMessagesHideTheirContentAndOpenOnlyUnderTheirKey() throws {
        let sealer = OutboxSealer(serverSecret: Array(repeating: 7, count: 32))
        let message = EmailMessage(to: ["ada@example.com"], subject: "Code", text: "Your code is 482913.", html: "<b>482913</b>")
        let sealed = try sealer.seal(message)
        #expect(!sealed.contains("482913"))
        #expect(!(Base64URL.decode(sealed).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("482913"))
        #expect(try sealer.open(sealed) == message)
        #expect(try sealer.seal(message) != sealed)  // a fresh nonce each time
        let other = OutboxSealer(serverSecret: Array(repeating: 8, count: 32))
        #expect(throws: OutboxSealError.self) { try other.open(sealed) }
        #expect(throws: OutboxSealError.self) { try sealer.open("not-a-payload") }
        #expect(OutboxSealError.unreadable.isPermanent)
        // A message from large custom templates opens too (well over a token's 4 KiB).
        let large = EmailMessage(
            to: ["ada@example.com"], subject: "Code", text: "482913", html: String(repeating: "<p>x</p>", count: 20_000))
        #expect(try sealer.open(try sealer.seal(large)) == large)
    }

    /// Base64url round-trips every length, never pads, and refuses what is not base64url.
    @Test func base64URLRoundTripsAndRefusesOtherText() {
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        for bad in ["a+b", "a/b", "a b", "é", "a", String(repeating: "A", count: 4100)] {
            #expect(Base64URL.decode(bad) == nil, "\(bad.prefix(8))")
        }
    }

    @Test func retriesBackOffExponentiallyWithinBounds() {
        let policy = MailRetryPolicy(maxAttempts: 5, baseDelay: 10, maxDelay: 100)
        for (attempt, nominal) in [(1, 10.0), (2, 20), (3, 40), (4, 80), (5, 100), (40, 100)] {
            let delay = policy.delay(afterAttempts: attempt)
            #expect(delay >= nominal * 0.8 && delay <= nominal * 1.2)
        }
        #expect(MailRetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test func theSignalWakesAWaiterAndRemembersAnEarlyNotify() async {
        let signal = OutboxSignal()
        signal.notify()
        let clock = ContinuousClock()
        let early = await clock.measure { await signal.wait(timeout: .seconds(30)) }
        #expect(early < .seconds(5))
        let waiter = Task { await clock.measure { await signal.wait(timeout: .seconds(30)) } }
        try? await Task.sleep(for: .milliseconds(50))
        signal.notify()
        #expect(await waiter.value < .seconds(5))
        let timedOut = await clock.measure { await signal.wait(timeout: .milliseconds(50)) }
        #expect(timedOut >= .milliseconds(50))
    }
}
