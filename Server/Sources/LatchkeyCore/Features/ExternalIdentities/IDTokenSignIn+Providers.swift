import Foundation
import LatchkeyAPI

extension IDTokenSignIn {
    /// The provider the request names (by `provider`, or by `issuer` as GoTrue allows) and the
    /// issuer whose keys must verify the token, read from the token and checked against the
    /// provider's issuers.
    func resolve(_ request: IDTokenGrantRequest, idToken: String) async throws -> (IdentityProvider, String) {
        let name = request.provider.flatMap { $0.isEmpty ? nil : $0 }
        guard name != nil || !(request.issuer ?? "").isEmpty && !(request.clientID ?? "").isEmpty else {
            throw Self.invalidRequest("provider or client_id and issuer required")
        }
        if let name, name.hasPrefix("custom:") {
            guard let custom = try await directory?.provider(named: name) else {
                throw AuthError(.validationFailed, "Custom provider \"\(name.dropFirst("custom:".count))\" not found")
            }
            guard custom.enabled else { throw AuthError(.providerDisabled, "Custom provider \"\(name)\" is disabled") }
            let detected = tokens.unverifiedClaims(idToken)?["iss"]?.stringValue
            guard let detected, custom.accepts(issuer: detected) else { throw Self.badIDToken }
            return (custom, detected)
        }
        guard let provider = provider(named: name, issuer: request.issuer) else {
            if let name, name.hasPrefix("custom:") {
                throw AuthError(.validationFailed, "Custom provider \"\(name.dropFirst("custom:".count))\" not found")
            }
            throw AuthError(.validationFailed, "Custom OIDC provider \"\(name ?? request.issuer ?? "")\" not allowed")
        }
        let detected = tokens.unverifiedClaims(idToken)?["iss"]?.stringValue
        // Apple and Microsoft are told apart by the token's own issuer, as GoTrue does.
        let label = provider.name == "apple" ? "Apple" : provider.name == "azure" ? "Azure" : nil
        if let label {
            guard let detected else { throw AuthError(.validationFailed, "Unable to detect issuer in ID token for \(label) provider") }
            guard provider.accepts(issuer: detected) else {
                throw AuthError(.validationFailed, "Detected ID token issuer is not an \(label) ID token issuer")
            }
            if let given = request.issuer, !given.isEmpty, given != detected {
                throw AuthError(.validationFailed, "Provided issuer does not match ID token issuer")
            }
        }
        guard provider.enabled else {
            throw AuthError(.providerDisabled, "Provider (issuer \"\(detected ?? request.issuer ?? provider.name)\") is not enabled")
        }
        let issuer = detected.map(provider.canonicalIssuer)
        guard let issuer, provider.accepts(issuer: issuer) else { throw Self.badIDToken }
        return (provider, issuer)
    }

    /// The configured provider named `name`, or without a name the one `issuer` belongs to.
    func provider(named name: String?, issuer: String?) -> IdentityProvider? {
        if let name { return settings.providers.first { $0.name == name && $0.isOpenID } }
        guard let issuer, !issuer.isEmpty else { return nil }
        return settings.providers.first { provider in
            // Keycloak is found by its issuer only while it is on, as in GoTrue.
            provider.accepts(issuer: issuer) && (provider.name != "keycloak" || provider.enabled)
        }
    }
}
