import Foundation
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
