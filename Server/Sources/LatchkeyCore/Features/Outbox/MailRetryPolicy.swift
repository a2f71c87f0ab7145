import Foundation

/// When a failed delivery is tried again: exponential back-off with jitter, up to a number of
/// attempts. The defaults (5 s doubling to at most an hour, 12 attempts) keep trying for about
/// three and a half hours.
public struct MailRetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The wait after the first failure, in seconds; it doubles after each one.
    public var baseDelay: Double
    /// The longest wait between attempts, in seconds.
    public var maxDelay: Double

    public init(maxAttempts: Int = 12, baseDelay: Double = 5, maxDelay: Double = 3600) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(self.baseDelay, maxDelay)
    }

    /// The wait after `attempts` failed attempts (1 for the first), ±20 % so that instances do not
    /// retry in step.
    public func delay(afterAttempts attempts: Int) -> Double {
        let exponent = Double(min(max(attempts - 1, 0), 30))
        let delay = min(maxDelay, baseDelay * pow(2, exponent))
        return delay * Double.random(in: 0.8...1.2)
    }
}

/// An error a ``Mailer`` throws that says whether trying again can help.
public protocol MailDeliveryFailure: Error {
    /// `true` when the receiving side refused for good (an unknown mailbox, a rejected sender).
    var isPermanent: Bool { get }
}
