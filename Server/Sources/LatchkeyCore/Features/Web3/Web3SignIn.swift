import Foundation
import LatchkeyAPI

/// `POST /token?grant_type=web3`: a wallet signs in by signing a "Sign in with Ethereum"
/// (EIP-4361) or "Sign in with Solana" message, GoTrue's grant with its checks, order and
/// answers (docs/web3.md lists them one by one). The user is the identity `web3:<chain>:<address>`,
/// made at the first sign-in; the session's `amr` is `web3`.
///
/// Stricter than GoTrue where no honest wallet can tell: a message signs in once (its digest kept
/// until it could no longer be used), an expired Ethereum message is refused whether or not it has
/// a `Not Before`, Ethereum's `s` in the lower half (EIP-2), an Ethereum identity keyed by the
/// EIP-55 form of the address (one wallet, one user, however the message spelled it), a Solana
/// address that is not 32 bytes of base58 refused (GoTrue answers 500).
public struct Web3SignIn: Sendable {
    public struct Settings: Sendable {
        public var ethereum: Bool
        public var solana: Bool
        /// Seconds a message's `Issued At` may be from now, either way (GoTrue's
        /// `…_MAXIMUM_VALIDITY_DURATION`, 10 minutes).
        public var ethereumValidity: Int
        public var solanaValidity: Int
        /// Wallet sign-ins per client IP (`GOTRUE_RATE_LIMIT_WEB3`, per 5 minutes).
        public var perIP: RateLimit

        public init(
            ethereum: Bool = false, solana: Bool = false, ethereumValidity: Int = 600, solanaValidity: Int = 600,
            perIP: RateLimit = RateLimit(count: 30, period: 300)
        ) {
            self.ethereum = ethereum
            self.solana = solana
            self.ethereumValidity = ethereumValidity
            self.solanaValidity = solanaValidity
            self.perIP = perIP
        }
    }

    let accounts: IDTokenSignIn
    /// Where a message's digest is kept while it could still sign in (one use).
    let spent: any RateLimitStore
    let recovering: any EthereumSignatureRecovering
    let redirects: RedirectPolicy
    let limiter: RateLimiter
    let settings: Settings
    let time: any TimeSource

    public init(
        accounts: IDTokenSignIn, spent: any RateLimitStore, recovering: any EthereumSignatureRecovering, redirects: RedirectPolicy,
        limiter: RateLimiter, settings: Settings, time: any TimeSource
    ) {
        self.accounts = accounts
        self.spent = spent
        self.recovering = recovering
        self.redirects = redirects
        self.limiter = limiter
        self.settings = settings
        self.time = time
    }

    /// The identity provider of wallets: `web3`, no address needed.
    static let provider = IdentityProvider(
        name: "web3", enabled: true, issuers: .exact([]), claims: .standard, clientIDs: [], emailOptional: true)

    static func refused(_ description: String) -> AuthError { AuthError(.validationFailed, description, oauthError: "invalid_grant") }

    /// The session for a signed message.
    public func signIn(_ request: Web3GrantRequest, client: ClientInfo) async throws -> Session {
        let wallet = try await verify(request, client: client)
        guard
            let session = try await accounts.complete(wallet, provider: Self.provider, data: [:], client: client, flow: nil, method: "web3")
        else { throw AuthError(.unexpectedFailure, "No session was made") }
        return session
    }

    /// Links the wallet that signed the message to the signed-in user (Latchkey's extension,
    /// `link_identity: true` with the user's token, as for id tokens, under the same
    /// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`): refused when the wallet is anyone's already, and at
    /// `aal1` when the user has a second factor. The answer is a new session of the user.
    public func link(_ request: Web3GrantRequest, principal: Principal, client: ClientInfo) async throws -> Session {
        // GoTrue's switch for every link, and the second-factor rule, before the message is spent.
        guard accounts.settings.manualLinking else { throw IdentityLinks.disabled }
        guard let linking = LinkingSession(principal) else { throw AuthError.sessionNotFound }
        try SecondFactorGate.check(principal.session, factors: principal.factors, to: "link an identity")
        let wallet = try await verify(request, client: client)
        return try await accounts.link(wallet, provider: Self.provider, to: linking, client: client, method: "web3")
    }

    /// The wallet a signed message proves, after every check, its message spent.
    func verify(_ request: Web3GrantRequest, client: ClientInfo) async throws -> ProviderUser {
        try await limiter.hit([.init("ip:web3:\(client.ip)", settings.perIP)])
        guard settings.ethereum || settings.solana else { throw AuthError(.web3ProviderDisabled, "Web3 provider is disabled") }
        let chain: Web3Message.Chain
        switch request.chain {
        case "ethereum":
            guard settings.ethereum else { throw AuthError(.web3ProviderDisabled, "Ethereum Web3 provider is disabled") }
            chain = .ethereum
        case "solana":
            guard settings.solana else { throw AuthError(.web3ProviderDisabled, "Solana Web3 provider is disabled") }
            chain = .solana
        default:
            throw AuthError(.web3UnsupportedChain, "Unsupported chain")
        }
        let text = request.message ?? ""
        let signature = request.signature ?? ""
        if text.utf8.count < 64 { throw AuthError.validation("message is too short") }
        if text.utf8.count > 20 * 1024 { throw AuthError.validation("message must not exceed 20KB") }
        let message: Web3Message
        let address: String
        switch chain {
        case .ethereum:
            guard (signature.hasPrefix("0x") ? signature.utf8.count - 2 : signature.utf8.count) == 130 else {
                throw AuthError.validation("signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string")
            }
            message = try parse(text, chain)
            guard let signer = Web3Signatures.ethereumSigner(of: text, signature: signature, recovering: recovering),
                signer.lowercased() == message.address.lowercased()
            else { throw Self.refused("Signature does not match address in message") }
            address = signer
        case .solana:
            guard signature.utf8.count == 86 || signature.utf8.count == 88 else {
                throw AuthError.validation("signature must be 64 bytes encoded as base64 with or without padding")
            }
            guard let bytes = Self.base64(signature) else {
                throw AuthError.validation("signature does not contain valid base64 characters")
            }
            message = try parse(text, chain)
            guard Web3Signatures.solanaSigned(text, signature: bytes, address: message.address, domain: message.domain) else {
                throw Self.refused("Signature does not match address in message")
            }
            address = message.address
        }
        try check(message)
        let validity = Double(chain == .ethereum ? settings.ethereumValidity : settings.solanaValidity)
        let usable = min(message.expirationTime ?? .distantFuture, message.issuedAt.addingTimeInterval(validity))
        let digest = Base64URL.encode(Web3Signatures.sha256(Array("\(chain.rawValue)\n\(text)".utf8)))
        let uses = try await spent.incrementRateLimit(
            key: "web3:used:\(digest)", windowStart: Date(timeIntervalSince1970: 0), expiresAt: usable)
        guard uses == 1 else { throw Self.refused("This signed message was used already: sign a new one") }

        let subject = "web3:\(chain.rawValue):\(address)"
        let claims: [String: JSONValue] = [
            "address": .string(address), "chain": .string(chain.rawValue), "network": .string(message.chainID ?? ""),
            "domain": .string(message.domain), "statement": message.statement.map(JSONValue.string) ?? .null,
        ]
        return ProviderUser(
            subject: subject, email: nil, emailVerified: false,
            identityData: ["sub": .string(subject), "custom_claims": .object(claims), "email_verified": false, "phone_verified": false])
    }

    func parse(_ text: String, _ chain: Web3Message.Chain) throws -> Web3Message {
        do {
            return try Web3Message.parse(text, chain: chain)
        } catch {
            throw AuthError.validation(error.message)
        }
    }

    /// GoTrue's checks of a message whose signature holds, in its order: the URI over HTTPS (or
    /// on localhost) and allowed here, the domain the URI's, the times.
    func check(_ message: Web3Message) throws {
        let name = message.chain == .ethereum ? "Ethereum" : "Solana"
        let localhost = message.uri.host?.lowercased() == "localhost"
        if message.uri.scheme != "https", !localhost {
            throw Self.refused("Signed \(name) message is using URI which does not use HTTPS")
        }
        if !redirects.isAllowed(message.uri.description) {
            throw Self.refused(
                "Signed \(name) message is using URI which is not allowed on this server, message was signed for another app")
        }
        if !localhost {
            let authority = (message.uri.host ?? "") + (message.uri.port.map { ":\($0)" } ?? "")
            guard authority == message.domain.lowercased(), redirects.isAllowed("https://\(message.domain)/") else {
                throw Self.refused(
                    "Signed \(name) message is using a Domain that does not match the one in URI which is not allowed on this server")
            }
        }
        let now = time.now()
        if let notBefore = message.notBefore, now < notBefore { throw Self.refused("Signed \(name) message becomes valid in the future") }
        if let expiration = message.expirationTime, now > expiration { throw Self.refused("Signed \(name) message is expired") }
        let validity = Double(message.chain == .ethereum ? settings.ethereumValidity : settings.solanaValidity)
        if now > message.issuedAt.addingTimeInterval(validity) { throw Self.refused("\(name) message was issued too long ago") }
        if now < message.issuedAt.addingTimeInterval(-validity) { throw Self.refused("\(name) message was issued too far in the future") }
    }

    /// GoTrue's reading of a Solana signature: standard or URL-safe base64, padded or not.
    static func base64(_ text: String) -> [UInt8]? {
        var trimmed = Substring(text)
        while trimmed.hasSuffix("=") { trimmed = trimmed.dropLast() }
        let urlSafe = trimmed.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return Base64URL.decode(urlSafe)
    }
}
