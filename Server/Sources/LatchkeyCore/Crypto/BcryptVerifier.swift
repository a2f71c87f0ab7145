/// Checks a password against a bcrypt hash imported from GoTrue (`$2a$`, `$2b$`, `$2y$`). The
/// app injects the implementation (the server's uses HummingbirdBcrypt), so the domain carries
/// no framework.
public protocol BcryptVerifier: Sendable {
    /// Whether `password` (its bytes as sent; bcrypt reads at most 72) matches `hash`.
    func verify(_ password: String, hash: String) -> Bool
}
