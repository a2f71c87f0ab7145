import Foundation
import LatchkeyCore
import LatchkeyStore
import Prometheus
import Synchronization

/// The server's Prometheus metrics (`GOTRUE_METRICS_ENABLED`): requests by route, method and
/// status with their latency; what the use cases and the store count through swift-metrics
/// (``auth``: sign-ins, codes sent, refusals, transactions, …); and gauges sampled from the
/// database at each scrape (the outbox's depth and the age of its oldest message, the sessions
/// stored). Rendered in Prometheus's text format by `GET /metrics`.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let series = Mutex<[String: (count: Counter, latency: DurationHistogram)]>([:])
    private let outboxDepth: Gauge
    private let outboxOldest: Gauge
    private let sessions: Gauge
    /// What the use cases and the store record, into this registry.
    public let auth: AuthMetrics

    /// Latency buckets from a millisecond (a cached answer) to ten seconds (a slow provider).
    static let buckets: [Duration] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000].map { .milliseconds($0) }
    /// Buckets for a transaction or a wait for a thread: from a tenth of a millisecond.
    static let storeBuckets: [Duration] =
        [.microseconds(100), .microseconds(250), .microseconds(500)] + [1, 2, 5, 10, 25, 50, 100, 250, 1000].map { .milliseconds($0) }

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        factory.durationHistogramBuckets[AuthMetrics.Name.transactionDuration] = Self.storeBuckets
        factory.durationHistogramBuckets[AuthMetrics.Name.hashQueueWait] = Self.storeBuckets
        auth = AuthMetrics(factory: factory)
        sessions = registry.makeGauge(
            descriptor: .init(
                namespace: "latchkey", metricName: "sessions", unitName: "active",
                helpText: "Sessions stored (signed-in devices), sampled at each scrape."))
        outboxDepth = registry.makeGauge(
            descriptor: .init(
                namespace: "latchkey", metricName: "outbox_pending", unitName: "messages",
                helpText: "Emails and SMS waiting to be delivered, retries included."))
        outboxOldest = registry.makeGauge(
            descriptor: .init(
                namespace: "latchkey", metricName: "outbox_oldest_age", unitName: "seconds",
                helpText: "How long the oldest undelivered message has waited; 0 when none waits."))
    }

    /// One answered request.
    func request(method: String, route: String, status: Int, duration: Duration) {
        let key = "\(method) \(route) \(status)"
        let found = series.withLock { series in
            if let found = series[key] { return found }
            let labels = [("method", method), ("route", route), ("status", String(status))]
            let made = (
                count: registry.makeCounter(
                    descriptor: .init(
                        namespace: "latchkey", metricName: "http_requests", unitName: "total", helpText: "Requests answered."),
                    labels: labels),
                latency: registry.makeDurationHistogram(
                    descriptor: .init(
                        namespace: "latchkey", metricName: "http_request_duration", unitName: "seconds",
                        helpText: "Time from a request's arrival to its answer."),
                    labels: labels, buckets: Self.buckets)
            )
            series[key] = made
            return made
        }
        found.count.increment()
        found.latency.record(duration)
    }

    /// The metrics as Prometheus text, after sampling the gauges from `store`.
    func render(sampling store: any MetricsSampling, now: Date) async -> String {
        if let backlog = try? await store.outboxBacklog() {
            outboxDepth.set(Double(backlog.count))
            outboxOldest.set(backlog.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        if let count = try? await store.sessionCount() { sessions.set(Double(count)) }
        return registry.emitToString()
    }
}

/// What a scrape samples from the store: the outbox's backlog and the number of sessions.
protocol MetricsSampling: Sendable {
    func outboxBacklog() async throws -> (count: Int, oldest: Date?)
    func sessionCount() async throws -> Int
}

extension SQLAuthStore: MetricsSampling {}
