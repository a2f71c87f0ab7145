import Foundation
import LatchkeyAPI

/// Custom OpenID providers (`custom:<name>`), as GoTrue's admin API manages them
/// (`/admin/custom-providers`, `latchkey providers`): an issuer found through discovery, a client
/// id and secret (sealed at rest), more accepted audiences, scopes. The id-token grant and the
/// redirect flow find them here at each request.
public struct CustomProviders: ProviderDirectory {
    let store: any CustomProviderStore
    let box: SecretBox
    /// This server's `/callback`, the redirect URI every custom provider is registered with.
    let callbackURL: String
    let time: any TimeSource
    let random: any RandomSource

    public init(store: any CustomProviderStore, serverSecret: [UInt8], externalURL: String, time: any TimeSource, random: any RandomSource)
    {
        self.store = store
        self.box = SecretBox(serverSecret: serverSecret, purpose: "latchkey custom provider secret v1")
        self.callbackURL = (externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL) + "/callback"
        self.time = time
        self.random = random
    }

    static let notFound = AuthError(.notFound, "Custom OAuth provider not found")

    public func list() async throws -> [CustomProvider] {
        try await store.customProviders().map(Self.wire)
    }

    public func get(_ identifier: String) async throws -> CustomProvider {
        try Self.checkIdentifier(identifier)
        guard let record = try await store.customProvider(identifier: identifier) else { throw Self.notFound }
        return Self.wire(record)
    }

    /// Adds a provider: `provider_type` `oidc`, a `custom:` identifier, a name, a client id and
    /// secret, an HTTPS (or loopback HTTP) issuer.
    public func create(_ request: CustomProviderRequest) async throws -> CustomProvider {
        guard request.providerType == "oidc" else {
            throw AuthError.validation(
                request.providerType == "oauth2"
                    ? "Only OIDC providers are supported (provider_type 'oidc')" : "provider_type must be either 'oauth2' or 'oidc'")
        }
        let identifier = request.identifier ?? ""
        try Self.checkIdentifier(identifier)
        guard let name = request.name, !name.isEmpty else { throw AuthError.validation("name is required") }
        guard let clientID = request.clientID, !clientID.isEmpty else { throw AuthError.validation("client_id is required") }
        guard let secret = request.clientSecret, !secret.isEmpty else { throw AuthError.validation("client_secret is required") }
        guard let issuer = request.issuer, !issuer.isEmpty else { throw AuthError.validation("issuer is required for OIDC providers") }
        try Self.checkIssuer(issuer)
        let now = time.now()
        let record = CustomProviderRecord(
            id: random.uuid(), identifier: identifier, name: name, clientID: clientID,
            sealedSecret: try box.seal(Array(secret.utf8), context: identifier), acceptableClientIDs: request.acceptableClientIDs ?? [],
            scopes: request.scopes ?? [], pkceEnabled: request.pkceEnabled ?? true, enabled: request.enabled ?? true,
            emailOptional: request.emailOptional ?? false, skipNonceCheck: request.skipNonceCheck ?? false, issuer: issuer,
            createdAt: now, updatedAt: now)
        do {
            try await store.insertCustomProvider(record)
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError(.conflict, "A custom provider with identifier \(identifier) already exists")
        }
        return Self.wire(record)
    }

    /// Changes the fields the request carries.
    public func update(_ identifier: String, _ request: CustomProviderRequest) async throws -> CustomProvider {
        try Self.checkIdentifier(identifier)
        guard var record = try await store.customProvider(identifier: identifier) else { throw Self.notFound }
        if let name = request.name { record.name = name }
        if let clientID = request.clientID { record.clientID = clientID }
        if let secret = request.clientSecret { record.sealedSecret = try box.seal(Array(secret.utf8), context: identifier) }
        if let ids = request.acceptableClientIDs { record.acceptableClientIDs = ids }
        if let scopes = request.scopes { record.scopes = scopes }
        if let pkce = request.pkceEnabled { record.pkceEnabled = pkce }
        if let enabled = request.enabled { record.enabled = enabled }
        if let optional = request.emailOptional { record.emailOptional = optional }
        if let skip = request.skipNonceCheck { record.skipNonceCheck = skip }
        if let issuer = request.issuer {
            try Self.checkIssuer(issuer)
            record.issuer = issuer
        }
        guard !record.name.isEmpty, !record.clientID.isEmpty else { throw AuthError.validation("name and client_id are required") }
        record.updatedAt = time.now()
        guard try await store.updateCustomProvider(record) else { throw Self.notFound }
        return Self.wire(record)
    }

    public func delete(_ identifier: String) async throws {
        try Self.checkIdentifier(identifier)
        guard try await store.deleteCustomProvider(identifier: identifier) else { throw Self.notFound }
    }

    public func provider(named identifier: String) async throws -> IdentityProvider? {
        guard let record = try await store.customProvider(identifier: identifier) else { return nil }
        let secret = String(decoding: try box.open(record.sealedSecret, context: record.identifier), as: UTF8.self)
        return IdentityProvider(
            name: record.identifier, enabled: record.enabled, issuers: .exact([record.issuer]), claims: .standard,
            clientIDs: [record.clientID] + record.acceptableClientIDs, skipNonceCheck: record.skipNonceCheck,
            emailOptional: record.emailOptional,
            oauth: OAuthClientSettings(
                secret: .fixed(secret), redirectURI: callbackURL,
                scopes: record.scopes.isEmpty ? ["openid", "email", "profile"] : record.scopes, pkce: record.pkceEnabled))
    }

    /// `custom:` and a name of letters, digits, `-` and `_`.
    static func checkIdentifier(_ identifier: String) throws {
        guard identifier.hasPrefix("custom:") else {
            throw AuthError.validation("identifier must start with 'custom:' prefix, e.g. 'custom:\(identifier)'")
        }
        let name = identifier.dropFirst("custom:".count)
        guard !name.isEmpty, name.count <= 64,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw AuthError.validation("identifier must be 'custom:' and 1–64 letters, digits, '-' or '_'") }
    }

    static func checkIssuer(_ issuer: String) throws {
        guard IssuerURL.isAcceptable(issuer) else {
            throw AuthError.validation("issuer must be an HTTPS URL (plain HTTP only on a loopback address)")
        }
    }

    static func wire(_ record: CustomProviderRecord) -> CustomProvider {
        CustomProvider(
            id: record.id, identifier: record.identifier, name: record.name, clientID: record.clientID,
            acceptableClientIDs: record.acceptableClientIDs, scopes: record.scopes, pkceEnabled: record.pkceEnabled,
            enabled: record.enabled, emailOptional: record.emailOptional, issuer: record.issuer,
            skipNonceCheck: record.skipNonceCheck, createdAt: record.createdAt, updatedAt: record.updatedAt)
    }
}
