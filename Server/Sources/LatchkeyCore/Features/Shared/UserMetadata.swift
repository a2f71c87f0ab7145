import Foundation
import LatchkeyAPI

/// The rule for the `user_metadata` a request may carry.
public enum UserMetadata {
    /// `validation_failed` for metadata larger than `maxBytes` of JSON.
    public static func check(_ metadata: [String: JSONValue], maxBytes: Int) throws {
        guard !metadata.isEmpty else { return }
        let size = (try? JSONEncoder().encode(metadata).count) ?? .max
        guard size <= maxBytes else {
            throw AuthError.unprocessable("user metadata must be at most \(maxBytes) bytes of JSON, not \(size)")
        }
    }
}
