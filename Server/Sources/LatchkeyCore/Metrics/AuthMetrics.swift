import CoreMetrics
import LatchkeyAPI

/// What the server counts for its operators (`GOTRUE_METRICS_ENABLED`), through swift-metrics
/// with the factory the server hands it (Prometheus's): sign-ins by method and outcome, sign-ups,
/// codes and links sent by channel, lock-outs and refresh-token reuse, each counted from the
/// audit events of a transaction once it has committed (``committed(_:)``), so nothing rolled back
/// is counted; and rate-limit refusals, delivery failures, store transactions and the wait for a
/// password-hashing thread.
///
/// Label values come from the code (a sign-in method, a limit's name), never from a request, so
/// every series is one of a few; a value that does not look like one is counted as `other`.
/// ``disabled`` records nothing and costs one branch per call.
public struct AuthMetrics: Sendable {
    let factory: any MetricsFactory
    /// Whether anything is recorded.
    public let isEnabled: Bool

    /// Records into `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        self.isEnabled = true
    }

    private init(disabledWith factory: any MetricsFactory) {
        self.factory = factory
        self.isEnabled = false
    }

    /// Records nothing.
    public static let disabled = AuthMetrics(disabledWith: NOOPMetricsHandler.instance)

    /// The metrics' names, as Prometheus shows them.
    public enum Name {
        public static let signIns = "latchkey_sign_ins_total"
        public static let signUps = "latchkey_sign_ups_total"
        public static let codesSent = "latchkey_codes_sent_total"
        public static let lockouts = "latchkey_lockouts_total"
        public static let refreshTokenReuse = "latchkey_refresh_token_reuse_total"
        public static let oauthGrants = "latchkey_oauth_grants_total"
        public static let rateLimitRefusals = "latchkey_rate_limit_refusals_total"
        public static let deliveryFailures = "latchkey_delivery_failures_total"
        public static let transactionDuration = "latchkey_db_transaction_duration_seconds"
        public static let transactionRetries = "latchkey_db_transaction_retries_total"
        public static let hashQueueWait = "latchkey_password_hash_queue_wait_seconds"
    }

    // MARK: What a transaction committed

    /// Counts what the audit events of a committed transaction record.
    public func committed(_ events: [AuditEvent]) {
        guard isEnabled else { return }
        for event in events { count(event) }
    }

    private func count(_ event: AuditEvent) {
        switch event.action {
        case .login:
            increment(Name.signIns, [("method", label(event.details["method"])), ("outcome", "success")])
        case .loginFailed:
            increment(Name.signIns, [("method", label(event.details["method"])), ("outcome", "failure")])
        case .userSignedUp:
            increment(Name.signUps, [("provider", label(event.details["provider"]))])
        case .codeSent:
            let kind = label(event.details["kind"])
            let channel = kind == OneTimeTokenKind.sms.rawValue || kind == OneTimeTokenKind.phoneChange.rawValue ? "sms" : "email"
            increment(Name.codesSent, [("channel", channel), ("kind", kind)])
        case .lockout:
            increment(Name.lockouts, [("kind", label(event.details["kind"]))])
        case .refreshTokenReuse:
            increment(Name.refreshTokenReuse, [])
        case .oauthConsentGranted:
            increment(Name.oauthGrants, [("event", "granted")])
        case .oauthConsentRevoked:
            increment(Name.oauthGrants, [("event", "revoked")])
        case .oauthCodeReuse:
            increment(Name.oauthGrants, [("event", "code_reuse")])
        default:
            break
        }
    }

    // MARK: Everything else

    /// A request refused by the rate limit stored under `key` (`ip:otp:203.0.113.9`): counted by
    /// the limit's name, the key without its subject (`ip:otp`).
    public func rateLimitRefused(key: String) {
        guard isEnabled else { return }
        increment(Name.rateLimitRefusals, [("limit", Self.limitName(key))])
    }

    /// A message that could not be handed over: `willRetry` when the outbox tries it again.
    public func deliveryFailed(channel: String, willRetry: Bool) {
        guard isEnabled else { return }
        increment(Name.deliveryFailures, [("channel", channel), ("outcome", willRetry ? "will_retry" : "given_up")])
    }

    /// A write transaction that ended after `duration`, run `attempts` times by its driver
    /// (a serialization failure or a deadlock runs it again).
    public func transaction(duration: Duration, attempts: Int, committed: Bool) {
        guard isEnabled else { return }
        Timer(label: Name.transactionDuration, dimensions: [("outcome", committed ? "committed" : "failed")], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
        if attempts > 1 {
            Counter(label: Name.transactionRetries, dimensions: [], factory: factory).increment(by: attempts - 1)
        }
    }

    /// How long a password hash waited for a hashing thread.
    public func hashQueueWait(_ duration: Duration) {
        guard isEnabled else { return }
        Timer(label: Name.hashQueueWait, dimensions: [], factory: factory).recordNanoseconds(duration.nanoseconds)
    }

    // MARK: Helpers

    private func increment(_ name: String, _ dimensions: [(String, String)]) {
        Counter(label: name, dimensions: dimensions, factory: factory).increment()
    }

    /// A label value from an audit detail: a short lowercase word, else `other`.
    func label(_ value: JSONValue?) -> String {
        guard case .string(let text) = value, Self.isWord(text) else { return "other" }
        return text
    }

    /// A rate limit's name: its key's first two parts (`ip:otp`, `email:all`).
    static func limitName(_ key: String) -> String {
        let parts = key.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).map(String.init)
        return parts.allSatisfy(isWord) ? parts.joined(separator: ":") : "other"
    }

    static func isWord(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 40
            && text.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }
    }
}
