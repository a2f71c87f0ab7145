import Foundation
import LatchkeyAPI
import LatchkeyCore
import MetricsTestKit
import Testing

/// What operators see counted: each audit event mapped to its series, refusals by limit, and
/// label values that cannot grow without bound.
@Suite struct AuthMetricsTests {
    static func event(_ action: AuditAction, _ details: [String: JSONValue]) -> AuditEvent {
        AuditEvent(
            action: action, actorID: nil, actorName: "someone", userID: nil, ip: nil, userAgent: nil, details: details, createdAt: Date())
    }

    @Test func committedEventsCountBySeries() throws {
        let test = TestMetrics()
        let metrics = AuthMetrics(factory: test)
        metrics.committed([
            Self.event(.login, ["method": "otp"]),
            Self.event(.login, ["method": "passkey"]),
            Self.event(.loginFailed, ["method": "password", "reason": "invalid_credentials"]),
            Self.event(.userSignedUp, ["provider": "phone"]),
            Self.event(.codeSent, ["kind": "magiclink"]),
            Self.event(.codeSent, ["kind": "sms"]),
            Self.event(.codeSent, ["kind": "phone_change"]),
            Self.event(.lockout, ["kind": "totp", "factor_id": "x"]),
            Self.event(.refreshTokenReuse, ["session_id": "x"]),
            Self.event(.oauthConsentGranted, ["client_id": "c"]),
            Self.event(.oauthConsentRevoked, ["client_id": "c"]),
            Self.event(.oauthCodeReuse, ["client_id": "c"]),
            Self.event(.login, ["method": "oauth_authorization_code", "client_id": "c"]),
            Self.event(.userModified, [:]),
        ])
        #expect(test.counterTotal(label: AuthMetrics.Name.signIns, dimensions: [("method", "otp"), ("outcome", "success")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.signIns, dimensions: [("method", "passkey"), ("outcome", "success")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.signIns, dimensions: [("method", "password"), ("outcome", "failure")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.signUps, dimensions: [("provider", "phone")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.codesSent, dimensions: [("channel", "email"), ("kind", "magiclink")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.codesSent, dimensions: [("channel", "sms"), ("kind", "sms")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.codesSent, dimensions: [("channel", "sms"), ("kind", "phone_change")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.lockouts, dimensions: [("kind", "totp")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.refreshTokenReuse) == 1)
        for event in ["granted", "revoked", "code_reuse"] {
            #expect(test.counterTotal(label: AuthMetrics.Name.oauthGrants, dimensions: [("event", event)]) == 1)
        }
        #expect(
            test.counterTotal(
                label: AuthMetrics.Name.signIns, dimensions: [("method", "oauth_authorization_code"), ("outcome", "success")]) == 1)
        // Nothing else: an operator's change counts nowhere.
        #expect(test.counters.map(\.totalValue).reduce(0, +) == 13)
    }

    /// A label value that is not a short word (absent, or anything a client could have chosen)
    /// is `other`, so no request can make new series.
    @Test func oddLabelValuesAreOther() {
        let test = TestMetrics()
        let metrics = AuthMetrics(factory: test)
        metrics.committed([
            Self.event(.login, [:]), Self.event(.login, ["method": 7]), Self.event(.login, ["method": "Pass Word"]),
            Self.event(.login, ["method": .string(String(repeating: "a", count: 41))]),
        ])
        #expect(test.counterTotal(label: AuthMetrics.Name.signIns, dimensions: [("method", "other"), ("outcome", "success")]) == 4)
    }

    @Test func refusalsCountByTheLimitsName() async throws {
        let test = TestMetrics()
        let store = InMemoryStore()
        let limiter = RateLimiter(store: store, time: ManualTimeSource(), metrics: AuthMetrics(factory: test))
        let once = RateLimit(count: 1, period: 60)
        try await limiter.hit("ip:otp:2001:db8::1", once)
        await #expect(throws: AuthError.self) { try await limiter.hit("ip:otp:2001:db8::1", once) }
        await #expect(throws: AuthError.self) { try await limiter.check("ip:otp:2001:db8::1", once) }
        _ = try await limiter.reserve("email:all", once)
        await #expect(throws: AuthError.self) { try await limiter.reserve("email:all", once) }
        // Limits refused in the store call they were given to, and counted on their own.
        let counted = limiter.counters(for: [RateLimiter.Limit("ip:verify:192.0.2.1", RateLimit(count: 0, period: 60))])
        #expect(limiter.refusal(from: RateLimitExceeded(index: 0), of: counted).code == .overRequestRateLimit)
        await #expect(throws: AuthError.self) { try await limiter.charge(counted) }
        #expect(test.counterTotal(label: AuthMetrics.Name.rateLimitRefusals, dimensions: [("limit", "ip:otp")]) == 2)
        #expect(test.counterTotal(label: AuthMetrics.Name.rateLimitRefusals, dimensions: [("limit", "email:all")]) == 1)
        #expect(test.counterTotal(label: AuthMetrics.Name.rateLimitRefusals, dimensions: [("limit", "ip:verify")]) == 2)
        // A key whose name is not two words is counted as `other`.
        await #expect(throws: AuthError.self) { try await limiter.hit("Weird Key", RateLimit(count: 0, period: 60)) }
        #expect(test.counterTotal(label: AuthMetrics.Name.rateLimitRefusals, dimensions: [("limit", "other")]) == 1)
    }

    @Test func disabledRecordsNothing() {
        #expect(!AuthMetrics.disabled.isEnabled)
        AuthMetrics.disabled.committed([Self.event(.login, ["method": "otp"])])
        AuthMetrics.disabled.rateLimitRefused(key: "ip:otp:x")
        AuthMetrics.disabled.transaction(duration: .milliseconds(1), attempts: 2, committed: true)
    }
}
