/// Why the server refused a one-time code (Latchkey's `reason`).
public enum CodeRefusal: String, Sendable, Codable, Equatable {
    /// The code was wrong and may be tried again: ``LatchkeyError/retryState`` is the state to try
    /// from (``LatchkeyError/isInvalidCode``).
    case invalid
    /// The code has expired: ask for a new one (``LatchkeyError/isCodeExpired``).
    case expired
    /// Too many wrong codes used the code up: ask for a new one
    /// (``LatchkeyError/isCodeAttemptsExhausted``).
    case exhausted
}
