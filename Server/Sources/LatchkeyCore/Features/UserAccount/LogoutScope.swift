import Foundation

/// Which sessions `POST /logout` ends.
public enum LogoutScope: String, Sendable {
    /// Every session of the user (the default).
    case global
    /// This session only.
    case local
    /// Every session but this one.
    case others
}
