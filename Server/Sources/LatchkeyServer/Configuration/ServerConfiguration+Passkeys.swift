import Foundation
import LatchkeyCore
import LatchkeyWebAuthn

extension ServerConfiguration {
    /// Passkeys, read from `GOTRUE_PASSKEY_*` and `GOTRUE_WEBAUTHN_*`: their relying party is also
    /// WebAuthn factors'. GoTrue starts with a relying party it cannot use and fails each ceremony
    /// with a 500; Latchkey refuses to start instead, naming the setting, when passkeys or
    /// WebAuthn `factors` are on.
    static func passkeySettings(_ reader: SettingReader, externalURL: String, appName: String, factors: Bool = false) throws
        -> Passkeys.Settings
    {
        let external = URLComponents(string: externalURL)
        let externalHost = external?.host?.lowercased() ?? "localhost"
        let loopback = externalHost == "127.0.0.1" || externalHost == "::1" || externalHost == "[::1]"
        let rpID = reader[\.webauthnRPID]?.lowercased() ?? (loopback ? "localhost" : externalHost)
        var defaultOrigin = "\(external?.scheme ?? "http")://\(loopback ? "localhost" : externalHost)"
        if let port = external?.port { defaultOrigin += ":\(port)" }
        let given = reader[\.webauthnRPOrigins]
        let enabled = try reader[\.passkeyEnabled]
        let used = enabled || factors
        var origins: [String] = []
        for origin in given.isEmpty ? [defaultOrigin] : given {
            guard let normal = Self.webAuthnOrigin(origin, rpID: rpID) else {
                if !used { continue }
                throw ConfigurationError(
                    "webauthn-rp-origins (GOTRUE_WEBAUTHN_RP_ORIGINS): \(origin) is neither an https:// origin (http:// on localhost) on \(rpID) nor android:apk-key-hash:…"
                )
            }
            origins.append(normal)
        }
        if used, !Self.isRelyingPartyID(rpID) {
            throw ConfigurationError(
                "webauthn-rp-id (GOTRUE_WEBAUTHN_RP_ID): \(rpID) is not a domain name (browsers refuse IP addresses; use localhost for development)"
            )
        }
        let verification = reader[\.passkeyUserVerification].lowercased()
        guard verification == "required" || verification == "preferred" else {
            throw ConfigurationError("passkey-user-verification (LATCHKEY_PASSKEY_USER_VERIFICATION) must be required or preferred")
        }
        let limit = try reader[\.passkeyMaxPerUser]
        guard limit >= 1 else { throw ConfigurationError("passkey-max-per-user must be at least 1") }
        return Passkeys.Settings(
            enabled: enabled, maxPerUser: limit,
            relyingParty: RelyingParty(id: rpID, origins: origins, requireUserVerification: verification == "required"),
            displayName: reader[\.webauthnRPDisplayName] ?? appName,
            challengeLifetime: TimeInterval(max(1, try reader[\.webauthnChallengeExpiry])),
            perIP: RateLimit(count: try reader[\.rateLimitPasskey], period: 300))
    }

    /// The origin as a browser writes it in `clientDataJSON` (`https://app.example.com`, the
    /// scheme and host in lower case, no default port, no path), when it may carry a ceremony for
    /// `rpID`; Android apps' `android:apk-key-hash:…` as given.
    static func webAuthnOrigin(_ text: String, rpID: String) -> String? {
        if text.hasPrefix("android:apk-key-hash:") { return text.count > 21 ? text : nil }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil, url.user == nil,
            url.password == nil
        else { return nil }
        guard scheme == "https" || (scheme == "http" && host == "localhost") else { return nil }
        guard host == rpID || host.hasSuffix("." + rpID) else { return nil }
        var origin = "\(scheme)://\(host)"
        if let port = url.port, port != (scheme == "https" ? 443 : 80) { origin += ":\(port)" }
        return origin
    }

    /// A domain name (`localhost` included), not an address.
    static func isRelyingPartyID(_ id: String) -> Bool {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        guard !id.isEmpty, id.count <= 253, !labels.contains(where: \.isEmpty) else { return false }
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return false }
        return labels.allSatisfy { label in
            label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
        }
    }
}
