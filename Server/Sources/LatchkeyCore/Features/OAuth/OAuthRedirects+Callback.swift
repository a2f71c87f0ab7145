import Foundation
import LatchkeyAPI
import Logging

extension OAuthRedirects {
    /// What the provider sent back to `/callback` (query, or Apple's form post).
    public struct Callback: Sendable, Equatable {
        public var state: String?
        public var code: String?
        /// The provider's refusal (`access_denied`, …) and its description.
        public var error: String?
        public var errorDescription: String?
        /// Apple's `user` JSON, sent on the first sign-in only: the name.
        public var appleUser: String?

        public init(
            state: String?, code: String?, error: String? = nil, errorDescription: String? = nil, appleUser: String? = nil
        ) {
            self.state = state
            self.code = code
            self.error = error
            self.errorDescription = errorDescription
            self.appleUser = appleUser
        }
    }

    /// Finishes the flow the callback's state names, in the browser that started it (`binding`,
    /// its binding cookie). A state that is missing, not this server's, expired, used before or
    /// started in another browser sends the browser to the site URL; every later refusal goes to
    /// the app's `redirect_to`.
    public func callback(_ callback: Callback, binding: String?, client: ClientInfo) async -> Outcome {
        let site = redirects.resolve(nil)
        guard let text = callback.state, !text.isEmpty else {
            return .failure(AuthError(.badOAuthCallback, "OAuth state parameter missing"), providerError: nil, to: site)
        }
        guard let state = OAuthState.opened(text, in: box) else {
            return .failure(AuthError(.badOAuthState, "OAuth state parameter is invalid"), providerError: nil, to: site)
        }
        let now = records.time.now()
        guard now.timeIntervalSince1970 <= state.expiresAt else {
            return .failure(AuthError(.badOAuthState, "OAuth state has expired"), providerError: nil, to: site)
        }
        // Login and linking CSRF: a state finishes only in the browser that started its flow.
        guard state.isBound(to: binding) else {
            return .failure(
                AuthError(.badOAuthState, "OAuth state was not started in this browser"), providerError: nil, to: site)
        }
        do {
            // A state is good once: a counter that allows one event, kept until the state expires.
            guard try await spend("oauth:state:" + state.id, until: state.expiresAt) else {
                return .failure(AuthError(.badOAuthState, "OAuth state has already been used"), providerError: nil, to: site)
            }
            return try await finish(callback, state: state, client: client)
        } catch let error as AuthError {
            return .failure(error, providerError: nil, to: state.redirectTo)
        } catch {
            signIn.logger.error("oauth callback failed", metadata: ["error": "\(error)"])
            return .failure(AuthError(.unexpectedFailure, "Unexpected failure"), providerError: nil, to: state.redirectTo)
        }
    }

    func finish(_ callback: Callback, state: OAuthState, client: ClientInfo) async throws -> Outcome {
        if let error = callback.error, !error.isEmpty {
            // The provider's own words never reach the app's error screen: a fixed text per code.
            let code = Self.providerErrors.contains(error) ? error : "server_error"
            return .failure(AuthError(.validationFailed, Self.providerErrorText(code)), providerError: code, to: state.redirectTo)
        }
        guard let code = callback.code, !code.isEmpty else {
            throw AuthError(.badOAuthCallback, "OAuth callback with missing authorization code")
        }
        guard let provider = try await signIn.lookup(state.provider), provider.enabled, provider.oauth != nil else {
            throw AuthError(.providerDisabled, "Provider \(state.provider) is not enabled")
        }
        let tokens: ProviderTokens
        do {
            tokens = try await self.client.exchange(code: code, verifier: state.providerVerifier, provider: provider)
        } catch {
            signIn.logger.info("provider code exchange failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
            throw AuthError(.unexpectedFailure, "Unable to exchange external code")
        }
        let user: ProviderUser
        if provider.isOpenID {
            guard let idToken = tokens.idToken else { throw AuthError(.unexpectedFailure, "The provider returned no id token") }
            user = try await signIn.verifyReturned(
                idToken, accessToken: tokens.accessToken, nonce: state.nonce, provider: provider, client: client)
        } else {
            do {
                user = try await self.client.user(accessToken: tokens.accessToken, provider: provider)
            } catch {
                signIn.logger.info("provider user lookup failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
                throw AuthError(.unexpectedFailure, "Error getting user profile from external provider")
            }
        }
        if let linking = state.linking {
            let session = try await signIn.link(user, provider: provider, to: linking, client: client)
            await keepGrant(tokens, user: user, provider: provider)
            return .session(session, providerToken: tokens.accessToken, to: state.redirectTo)
        }
        let data = Self.appleName(callback.appleUser)
        if let challenge = state.codeChallenge, let method = state.codeChallengeMethod.flatMap(PKCEChallenge.Method.init) {
            let authCode = records.random.linkSecret()
            let flow = BrowserFlow(
                challenge: PKCEChallenge(challenge: challenge, method: method), authCodeHash: OneTimeSecrets.linkHash(authCode),
                lifetime: lifetime)
            _ = try await signIn.complete(user, provider: provider, data: data, client: client, flow: flow)
            await keepGrant(tokens, user: user, provider: provider)
            return .authCode(authCode, to: state.redirectTo)
        }
        guard let session = try await signIn.complete(user, provider: provider, data: data, client: client, flow: nil) else {
            throw AuthError(.unexpectedFailure, "No session was made")
        }
        await keepGrant(tokens, user: user, provider: provider)
        return .session(session, providerToken: tokens.accessToken, to: state.redirectTo)
    }

    /// Keeps the provider's refresh token (Apple's) for the identity just signed in or linked.
    func keepGrant(_ tokens: ProviderTokens, user: ProviderUser, provider: IdentityProvider) async {
        guard let grants = signIn.grants, ProviderGrants.revoked.contains(provider.name), tokens.refreshToken != nil,
            let owner = try? await signIn.store.identity(provider: provider.name, providerID: user.subject)?.user.id
        else { return }
        await grants.keep(tokens, clientID: provider.clientIDs.first ?? "", userID: owner, subject: user.subject, provider: provider)
    }

    /// The `error` codes of OAuth 2.0 (RFC 6749 §4.1.2.1), OpenID Connect Core §3.1.2.6 and
    /// Apple, passed on to the app as they came; any other becomes `server_error`.
    static let providerErrors: Set<String> = [
        "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type", "invalid_scope", "server_error",
        "temporarily_unavailable", "interaction_required", "login_required", "account_selection_required", "consent_required",
        "invalid_request_uri", "invalid_request_object", "request_not_supported", "request_uri_not_supported",
        "registration_not_supported", "user_cancelled_authorize",
    ]

    /// Our text for a provider's `error`: the provider's `error_description` is not shown, so a
    /// provider (or whoever crafted the callback URL) cannot put words in the app's error screen.
    static func providerErrorText(_ code: String) -> String {
        switch code {
        case "access_denied", "user_cancelled_authorize", "consent_required":
            "The sign-in was cancelled or refused at the provider."
        case "login_required", "interaction_required", "account_selection_required":
            "The provider needs you to sign in there first."
        case "temporarily_unavailable":
            "The provider is unavailable. Try again later."
        default:
            "The provider could not complete the sign-in."
        }
    }

    /// Apple's `user` form field (`{"name":{"firstName":…,"lastName":…},"email":…}`) as metadata.
    static func appleName(_ json: String?) -> [String: JSONValue] {
        guard let json, json.utf8.count <= 4096,
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8)),
            let name = object["name"]?.objectValue
        else { return [:] }
        let full = [name["firstName"]?.stringValue, name["lastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return full.isEmpty ? [:] : ["full_name": .string(full), "name": .string(full)]
    }
}
