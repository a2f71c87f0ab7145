import Foundation

/// Which defaults hold: Latchkey's own, or GoTrue's for an instance configured the GoTrue way.
///
/// An instance configured with any of GoTrue's names (`GOTRUE_*`, `API_EXTERNAL_URL`) keeps
/// GoTrue's defaults, so that a GoTrue deployment's configuration behaves as GoTrue did, and says at
/// start-up what it would harden (`latchkey config check`). Configured natively, Latchkey's stricter
/// defaults hold. `LATCHKEY_PROFILE` chooses either way. What is stricter than GoTrue and breaks no
/// client (the newest code only, scanner-safe links, refresh-token reuse detection, SQLite's
/// `synchronous=FULL`, the HTTP timeouts) holds in both.
public enum SettingsProfile: String, Sendable, CaseIterable {
    case strict
    case gotrue

    /// The profile an environment asks for: `LATCHKEY_PROFILE`, else `gotrue` when any of GoTrue's
    /// names is set (even empty, as a compose file sets them), else `strict`.
    static func of(_ environment: [String: String]) throws -> SettingsProfile {
        if let named = environment["LATCHKEY_PROFILE"], !named.isEmpty {
            guard let profile = SettingsProfile(rawValue: named.lowercased()) else {
                throw ConfigurationError("LATCHKEY_PROFILE must be strict or gotrue, not '\(named)'")
            }
            return profile
        }
        let goTrueStyle = environment.keys.contains { $0.hasPrefix("GOTRUE_") || $0 == "API_EXTERNAL_URL" }
        return goTrueStyle ? .gotrue : .strict
    }
}
