import Foundation
import Logging
import Tracing

/// Sends what the outbox holds: claims due messages (with a lease, so several instances never
/// send one message twice at once), hands each to the ``Mailer``, and records the outcome:
/// sent, retried later with back-off, or given up on.
public struct OutboxDelivery: Sendable {
    public let store: any OutboxStore
    public let mailer: any Mailer
    public let sealer: OutboxSealer
    public let time: any TimeSource
    public let retry: MailRetryPolicy
    /// How long a claimed message stays reserved for this instance; a crash mid-send frees it
    /// after this long.
    public let lease: TimeInterval
    /// Messages claimed per round.
    public let batchSize: Int
    /// Where failed attempts are counted.
    public let metrics: AuthMetrics
    /// Posts webhook deliveries; `nil` leaves them queued.
    public let webhooks: (any WebhookSender)?
    /// Where each attempt gets a span (`outbox.deliver`), when traces are on.
    public let tracer: (any Tracer)?
    public let logger: Logger

    public init(
        store: any OutboxStore, mailer: any Mailer, sealer: OutboxSealer, time: any TimeSource, retry: MailRetryPolicy = MailRetryPolicy(),
        lease: TimeInterval = 120, batchSize: Int = 20, metrics: AuthMetrics = .disabled, webhooks: (any WebhookSender)? = nil,
        tracer: (any Tracer)? = nil, logger: Logger = Logger(label: "latchkey.outbox")
    ) {
        self.store = store
        self.mailer = mailer
        self.sealer = sealer
        self.time = time
        self.retry = retry
        self.lease = lease
        self.batchSize = max(1, batchSize)
        self.metrics = metrics
        self.webhooks = webhooks
        self.tracer = tracer
        self.logger = logger
    }

    /// Delivers every message due now, batch by batch (emails, then webhook events); returns how
    /// many attempts it made.
    @discardableResult
    public func deliverDue() async throws -> Int {
        let mail = try await deliverDueMail()
        guard webhooks != nil else { return mail }
        var attempted = 0
        while !Task.isCancelled {
            let now = time.now()
            let batch = try await store.claimOutbox(
                now: now, leaseUntil: now.addingTimeInterval(lease), limit: batchSize, channel: .webhook)
            for record in batch { try await attempt(record) }
            attempted += batch.count
            if batch.count < batchSize { break }
        }
        return mail + attempted
    }

    func deliverDueMail() async throws -> Int {
        var attempted = 0
        while !Task.isCancelled {
            let now = time.now()
            if let claiming = mailer as? any ClaimingMailer {
                let sealer = self.sealer
                do {
                    let round = try await claiming.claimAndDeliver(
                        now: now, leaseUntil: now.addingTimeInterval(lease), limit: batchSize, open: { try? sealer.open($0.payload) })
                    for record in round.unread { try await attempt(record) }  // records why it cannot be read
                    attempted += round.delivered + round.unread.count
                    if round.delivered + round.unread.count < batchSize { break }
                    continue
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    logger.warning("claiming delivery failed; claiming and delivering apart", metadata: ["error": "\(error)"])
                }
            }
            let batch = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(lease), limit: batchSize)
            try await deliver(batch)
            attempted += batch.count
            if batch.count < batchSize { break }
        }
        return attempted
    }

    /// When the next pending message is due (or its lease ends), if any.
    public func nextDue() async throws -> Date? {
        try await store.nextOutboxAttempt()
    }

    /// Hands a claimed batch over: in one step to a ``BatchMailer``, falling back to one message
    /// at a time (each with its own outcome) when that fails; one by one to any other mailer.
    func deliver(_ batch: [OutboxRecord]) async throws {
        guard let batchMailer = mailer as? any BatchMailer, batch.count > 0 else {
            for record in batch { try await attempt(record) }
            return
        }
        var opened: [(record: OutboxRecord, message: EmailMessage)] = []
        for record in batch {
            if let message = try? sealer.open(record.payload) {
                opened.append((record, message))
            } else {
                try await attempt(record)  // records why it cannot be opened
            }
        }
        guard !opened.isEmpty else { return }
        do {
            try await batchMailer.deliver(opened)
        } catch {
            logger.warning("batch delivery failed; delivering one by one", metadata: ["error": "\(error)"])
            for (record, _) in opened { try await attempt(record) }
        }
    }

    func attempt(_ record: OutboxRecord) async throws {
        try await TracedWork.run(
            tracer, "outbox.deliver", kind: .producer,
            attributes: ["latchkey.outbox.channel": record.channel.rawValue, "latchkey.outbox.attempt": String(record.attempts + 1)]
        ) { _ in try await deliver(record) }
    }

    func deliver(_ record: OutboxRecord) async throws {
        let attempts = record.attempts + 1
        do {
            switch record.channel {
            case .email: try await mailer.send(try sealer.open(record.payload))
            case .webhook:
                guard let webhooks else { throw WebhookFailure(isPermanent: false, reason: "webhooks are not delivered here") }
                try await webhooks.send(record)
            }
            try await store.finishOutbox(id: record.id, outcome: .sent(at: time.now()))
            logger.debug(
                "message sent", metadata: ["id": "\(record.id)", "channel": "\(record.channel.rawValue)", "attempts": "\(attempts)"])
        } catch {
            let now = time.now()
            let reason = String(describing: error)
            let permanent = (error as? any MailDeliveryFailure)?.isPermanent ?? false
            let givingUp = permanent || attempts >= retry.maxAttempts
            metrics.deliveryFailed(channel: record.channel.rawValue, willRetry: !givingUp)
            if givingUp {
                try await store.finishOutbox(id: record.id, outcome: .failed(attempts: attempts, at: now, error: reason))
                logger.error(
                    "message not delivered; giving up",
                    metadata: ["id": "\(record.id)", "to": "\(record.recipient)", "attempts": "\(attempts)", "error": "\(reason)"])
            } else {
                let next = now.addingTimeInterval(retry.delay(afterAttempts: attempts))
                try await store.finishOutbox(id: record.id, outcome: .retry(attempts: attempts, next: next, error: reason))
                logger.warning(
                    "message delivery failed; will retry",
                    metadata: ["id": "\(record.id)", "attempts": "\(attempts)", "retry_at": "\(next)", "error": "\(reason)"])
            }
        }
    }
}
