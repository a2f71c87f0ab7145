import Crypto
import Foundation
import LatchkeyAPI
import Logging

extension IDTokenSignIn {
    /// The token's user once its signature, issuer, times, audience, nonce and `at_hash` hold;
    /// a refusal is recorded (`login_failed`, with the reason) and answered as GoTrue answers it.
    func verify(_ idToken: String, request: IDTokenGrantRequest, provider: IdentityProvider, issuer: String, client: ClientInfo)
        async throws -> ProviderUser
    {
        let verified: VerifiedIDToken
        do {
            verified = try await tokens.verified(idToken, issuer: issuer)
        } catch let refusal as IDTokenRefusal {
            logger.info("id token refused", metadata: ["provider": "\(provider.name)", "reason": "\(refusal)"])
            try await recordRefusal(refusal.reason.rawValue, provider: provider, client: client)
            if refusal.reason == .unreachable { throw Self.providerUnreachable }
            throw Self.badIDToken
        }
        do {
            return try check(verified, request: request, provider: provider, issuer: issuer)
        } catch let refusal as ClaimRefusal {
            try await recordRefusal(refusal.reason, provider: provider, client: client)
            throw refusal.error
        }
    }

    /// The user of an id token a provider's token endpoint returned to the redirect flow, checked
    /// as the grant checks one: the nonce is the raw one Latchkey sent the hash of.
    public func verifyReturned(_ idToken: String, accessToken: String?, nonce: String, provider: IdentityProvider, client: ClientInfo)
        async throws -> ProviderUser
    {
        let detected = tokens.unverifiedClaims(idToken)?["iss"]?.stringValue
        let issuer = detected.map(provider.canonicalIssuer)
        guard let issuer, provider.accepts(issuer: issuer) else {
            try await recordRefusal("issuer", provider: provider, client: client)
            throw Self.badIDToken
        }
        let request = IDTokenGrantRequest(provider: provider.name, idToken: idToken, accessToken: accessToken, nonce: nonce)
        return try await verify(idToken, request: request, provider: provider, issuer: issuer, client: client)
    }

    /// A claim that does not hold: the reason recorded and the error answered.
    struct ClaimRefusal: Error {
        var reason: String
        var error: AuthError
    }

    /// The claims' rules, in GoTrue's order.
    func check(_ token: VerifiedIDToken, request: IDTokenGrantRequest, provider: IdentityProvider, issuer: String) throws
        -> ProviderUser
    {
        let claims = token.claims
        let now = records.time.now().timeIntervalSince1970
        func refuse(_ reason: String, _ error: AuthError = Self.badIDToken) -> ClaimRefusal { ClaimRefusal(reason: reason, error: error) }
        // The issuer the keys belong to, spelled as the token spells it.
        guard let iss = claims["iss"]?.stringValue, provider.canonicalIssuer(iss) == issuer else { throw refuse("issuer") }
        guard let exp = claims["exp"]?.numberValue, now <= exp + settings.leeway else { throw refuse("expired") }
        guard let iat = claims["iat"]?.numberValue, iat <= now + settings.leeway else { throw refuse("issued_in_future") }
        if let nbf = claims["nbf"] {
            guard let notBefore = nbf.numberValue, notBefore <= now + settings.leeway else { throw refuse("not_yet_valid") }
        }
        guard let user = ProviderUser(claims: claims, as: provider.claims) else { throw refuse("claims") }
        guard !user.subject.isEmpty else { throw refuse("subject", Self.invalidRequest("Missing sub claim in id_token")) }
        let audiences = Self.audiences(claims["aud"])
        guard provider.clientIDs.contains(where: { !$0.isEmpty && audiences.contains($0) }) else {
            throw refuse(
                "audience", Self.invalidRequest("Unacceptable audience in id_token: [\(audiences.joined(separator: " "))]"))
        }
        if !provider.skipNonceCheck {
            let given = request.nonce.flatMap { $0.isEmpty ? nil : $0 }
            let carried = claims["nonce"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            switch (given, carried) {
            case (nil, nil): break
            case (let given?, let carried?):
                guard SHA256.hash(data: Data(given.utf8)).hexString == carried else {
                    throw refuse("nonce", AuthError(.validationFailed, "Nonces mismatch", oauthError: "invalid nonce"))
                }
            default:
                throw refuse("nonce", Self.invalidRequest("Passed nonce and nonce in id_token should either both exist or not."))
            }
        }
        if let accessToken = request.accessToken, !accessToken.isEmpty, let atHash = claims["at_hash"]?.stringValue {
            guard Self.atHash(accessToken, algorithm: token.algorithm) == atHash else { throw refuse("at_hash") }
        }
        return user
    }

    /// `aud`, a string or an array of strings.
    static func audiences(_ value: JSONValue?) -> [String] {
        if let single = value?.stringValue { return [single] }
        return value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// OpenID's `at_hash`: the left half of the access token's hash under the signature's hash
    /// function, base64url; `nil` for an algorithm with no such hash.
    static func atHash(_ accessToken: String, algorithm: String) -> String? {
        let data = Data(accessToken.utf8)
        let digest: [UInt8]
        switch algorithm.suffix(3) {
        case "256": digest = Array(SHA256.hash(data: data))
        case "384": digest = Array(SHA384.hash(data: data))
        case "512", "DSA": digest = Array(SHA512.hash(data: data))
        default: return nil
        }
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    func recordRefusal(_ reason: String, provider: IdentityProvider, client: ClientInfo) async throws {
        try await store.appendAudit([
            records.events.event(
                .loginFailed, userID: nil, name: provider.name,
                details: ["method": "id_token", "provider": .string(provider.name), "reason": .string(reason)], client: client)
        ])
    }

    /// The issuer's keys could not be fetched: the provider (or the way to it) is down, and the
    /// request may be retried. GoTrue answers 500; Latchkey says what happened, with 503.
    static var providerUnreachable: AuthError {
        var error = AuthError(.unexpectedFailure, "The identity provider's signing keys could not be fetched; try again later")
        error.status = 503
        return error
    }
}
