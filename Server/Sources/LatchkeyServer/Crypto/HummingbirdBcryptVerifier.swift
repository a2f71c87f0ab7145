import HummingbirdBcrypt
import LatchkeyCore

/// ``BcryptVerifier`` over HummingbirdBcrypt.
public struct HummingbirdBcryptVerifier: BcryptVerifier {
    public init() {}

    public func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
