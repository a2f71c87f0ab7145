import Crypto
import Foundation

/// A Standard Webhooks signing secret, `v1,whsec_<base64>`, as GoTrue's hooks take them
/// (`GOTRUE_HOOK_*_SECRETS`, several joined by `|`) and as webhooks use them
/// (`LATCHKEY_WEBHOOK_SECRET`). A request is signed over `<webhook-id>.<webhook-timestamp>.<body>`
/// with HMAC-SHA256; the receiver checks `webhook-signature` with the same secret.
public struct WebhookSecret: Sendable, Equatable {
    let key: [UInt8]

    /// Reads `v1,whsec_<32 to 88 base64 characters>`; `nil` for anything else (GoTrue's
    /// asymmetric `v1a,whpk_…` secrets included: GoTrue cannot sign with them either).
    public init?(_ text: String) {
        let prefix = "v1,whsec_"
        guard text.hasPrefix(prefix) else { return nil }
        let encoded = text.dropFirst(prefix.count)
        guard (32...88).contains(encoded.count),
            encoded.utf8.allSatisfy({ $0.isBase64 }),
            let key = Data(base64Encoded: String(encoded))
        else { return nil }
        self.key = Array(key)
    }

    /// Reads `|`-separated secrets (GoTrue's form); `nil` when one of them is not a secret.
    public static func list(_ text: String) -> [WebhookSecret]? {
        var secrets: [WebhookSecret] = []
        for part in text.split(separator: "|") where !part.isEmpty {
            guard let secret = WebhookSecret(String(part)) else { return nil }
            secrets.append(secret)
        }
        return secrets
    }

    /// `v1,<base64 of HMAC-SHA256 over "<id>.<timestamp>.<body>">`.
    public func signature(id: String, timestamp: Int, body: [UInt8]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed += body
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The `webhook-signature` header for `secrets`: one signature each, space-separated (the
    /// spec's form, so that a receiver rotating its secret accepts either).
    public static func header(_ secrets: [WebhookSecret], id: String, timestamp: Int, body: [UInt8]) -> String {
        secrets.map { $0.signature(id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }
}

extension UInt8 {
    fileprivate var isBase64: Bool {
        (65...90).contains(self) || (97...122).contains(self) || (48...57).contains(self) || self == 43 || self == 47 || self == 61
    }
}
