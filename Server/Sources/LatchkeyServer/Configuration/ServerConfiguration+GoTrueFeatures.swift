import Foundation

extension ServerConfiguration {
    /// The external providers Latchkey serves under GoTrue's names.
    static let goTrueProviders: Set<String> = ["APPLE", "AZURE", "GITHUB", "GOOGLE", "KEYCLOAK"]

    /// GoTrue's switches for what Latchkey does not have. One whose absence would leave an instance
    /// less safe than the GoTrue deployment it replaces refuses the start (docs/gotrue-variables.json
    /// marks them `refused`); one for a feature that is simply missing starts with a warning
    /// naming what its clients will get instead.
    static func goTrueFeatureWarnings(_ environment: [String: String]) throws -> [String] {
        func value(_ name: String) -> String? {
            environment[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func turned(_ name: String, _ on: Bool) -> Bool { value(name).flatMap(SettingReader.boolean) == on }
        let refusals: [(Bool, String)] = [
            (
                turned("GOTRUE_EXTERNAL_EMAIL_ENABLED", false),
                "GOTRUE_EXTERNAL_EMAIL_ENABLED=false: email sign-in cannot be turned off yet, and starting would open it; leave the setting out to serve it"
            ),
            (
                turned("GOTRUE_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED", false),
                "GOTRUE_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED=false: emailed codes and links cannot be turned off yet, and starting would open them"
            ),
            (
                value("GOTRUE_EXTERNAL_EMAIL_AUTHORIZED_ADDRESSES") != nil,
                "GOTRUE_EXTERNAL_EMAIL_AUTHORIZED_ADDRESSES: mail cannot be restricted to a list, and starting would send it to every address"
            ),
            (
                value("GOTRUE_PASSWORD_REQUIRED_CHARACTERS") != nil,
                "GOTRUE_PASSWORD_REQUIRED_CHARACTERS: character classes are not enforced, and starting would accept passwords GoTrue refused; require length instead (GOTRUE_PASSWORD_MIN_LENGTH, LATCHKEY_PASSWORD_BLOCK_COMMON)"
            ),
        ]
        if let refusal = refusals.first(where: \.0) { throw ConfigurationError(refusal.1) }

        let missing: [(String, String)] = [
            ("GOTRUE_SAML_ENABLED", "SAML single sign-on is not served: /sso answers 404 saml_provider_disabled"),
            ("GOTRUE_SESSIONS_SINGLE_PER_USER", "sessions are not limited to one per user"),
        ]
        var warnings = missing.filter { turned($0.0, true) }.map { "\($0.0)=true: \($0.1)" }
        // GoTrue's other OAuth providers (facebook, gitlab, slack…).
        for name in environment.keys.sorted() where name.hasPrefix("GOTRUE_EXTERNAL_") && name.hasSuffix("_ENABLED") {
            let provider = String(name.dropFirst("GOTRUE_EXTERNAL_".count).dropLast("_ENABLED".count))
            guard !goTrueProviders.contains(provider), !["EMAIL", "PHONE", "ANONYMOUS_USERS"].contains(provider),
                !provider.hasPrefix("WEB3_"), turned(name, true)
            else { continue }
            warnings.append("\(name)=true: \(provider.lowercased()) sign-in is not built: /authorize answers Unsupported provider")
        }
        return warnings
    }
}
