import Foundation
import LatchkeyAPI

/// The claims of an access token the SDK reads for itself, decoded from the JWT's payload
/// without checking its signature: the server checks tokens; the client only looks.
struct AccessTokenClaims: Sendable, Equatable {
    /// The authenticator assurance level, e.g. `aal1` (`aal`).
    var aal: String?
    /// How the user authenticated, oldest first (`amr`).
    var amr: [AuthenticationMethodReference]

    /// Reads `token`'s payload, or returns `nil` when it is not a JWT with a JSON object payload.
    init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])),
            let payload = try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
        else { return nil }
        aal = payload["aal"]?.stringValue
        amr = payload["amr"]?.arrayValue?.compactMap(AuthenticationMethodReference.init(claim:)) ?? []
    }
}

extension AuthenticationMethodReference {
    /// One `amr` entry: GoTrue's `{"method","timestamp"}` object, or RFC 8176's bare string.
    init?(claim: JSONValue) {
        switch claim {
        case .string(let method):
            self.init(method: method, timestamp: nil)
        case .object(let entry):
            guard let method = entry["method"]?.stringValue else { return nil }
            var timestamp: Date?
            if case .number(let seconds) = entry["timestamp"] { timestamp = Date(timeIntervalSince1970: seconds) }
            self.init(method: method, timestamp: timestamp)
        default:
            return nil
        }
    }
}
