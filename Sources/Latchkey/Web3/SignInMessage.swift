import Foundation

/// The chains a wallet signs in with (`grant_type=web3`).
public enum Web3Chain: String, Sendable, CaseIterable {
    /// Sign in with Ethereum (EIP-4361): `personal_sign` by MetaMask, WalletConnect, a Ledger….
    case ethereum
    /// Sign in with Solana: `signMessage` by Phantom, Solflare, a Ledger, or the embedded signer.
    case solana
}

/// A "Sign in with Ethereum" (EIP-4361) or "Sign in with Solana" message, built with everything
/// the server checks filled in: the app's domain and URI, the chain, a fresh nonce and the times.
/// A wallet app only signs ``text``.
///
/// ```swift
/// let message = SignInMessage(chain: .ethereum, address: walletAddress, uri: URL(string: "https://app.example.com/login")!,
///                             statement: "Sign in to Example", chainID: "1")
/// let signature = try await wallet.personalSign(message.text)     // WalletConnect, MetaMask SDK…
/// try await auth.signInWithWeb3(message: message, signature: signature)
/// ```
public struct SignInMessage: Sendable, Equatable {
    public var chain: Web3Chain
    /// The host (and port) of ``uri``: the server refuses a message whose domain is not its URI's.
    public var domain: String
    /// The wallet's address: `0x…` (EIP-55) on Ethereum, base58 on Solana.
    public var address: String
    public var statement: String?
    /// The app's address; the server takes it when it is its site URL or on its allow list.
    public var uri: URL
    /// `1` (mainnet) and the like on Ethereum; `solana:mainnet`, `solana:devnet`… on Solana.
    public var chainID: String?
    /// At least 8 letters and digits; a fresh one by default.
    public var nonce: String
    public var issuedAt: Date
    public var expirationTime: Date?
    public var notBefore: Date?
    public var requestID: String?
    public var resources: [URL]

    /// A message for `address` to sign now, for `uri`'s host, valid for `validity` seconds (the
    /// server allows ten minutes around `Issued At` by default).
    public init(
        chain: Web3Chain, address: String, uri: URL, statement: String? = nil, chainID: String? = nil, nonce: String? = nil,
        issuedAt: Date = Date(), validity: TimeInterval? = 300, notBefore: Date? = nil, requestID: String? = nil, resources: [URL] = []
    ) {
        self.chain = chain
        self.address = address
        self.uri = uri
        self.domain = (uri.host ?? "") + (uri.port.map { ":\($0)" } ?? "")
        self.statement = statement
        self.chainID = chainID ?? (chain == .solana ? "solana:mainnet" : "1")
        self.nonce = nonce ?? Self.newNonce()
        self.issuedAt = issuedAt
        self.expirationTime = validity.map { issuedAt.addingTimeInterval($0) }
        self.notBefore = notBefore
        self.requestID = requestID
        self.resources = resources
    }

    /// A "Sign in with Ethereum" (EIP-4361) message for `address` (EIP-55), on `chainID` (1: mainnet).
    public static func siwe(
        address: String, uri: URL, statement: String? = nil, chainID: Int = 1, validity: TimeInterval? = 300
    ) -> SignInMessage {
        SignInMessage(chain: .ethereum, address: address, uri: uri, statement: statement, chainID: String(chainID), validity: validity)
    }

    /// A "Sign in with Solana" message for `address` (base58), on `network` (`solana:mainnet`…).
    public static func siws(
        address: String, uri: URL, statement: String? = nil, network: String = "solana:mainnet", validity: TimeInterval? = 300
    ) -> SignInMessage {
        SignInMessage(chain: .solana, address: address, uri: uri, statement: statement, chainID: network, validity: validity)
    }

    /// The text the wallet signs, in EIP-4361's order (the Solana form alike).
    public var text: String {
        var lines = ["\(domain) wants you to sign in with your \(chain == .ethereum ? "Ethereum" : "Solana") account:", address, ""]
        if let statement, !statement.isEmpty { lines += [statement, ""] }
        lines.append("URI: \(uri.absoluteString)")
        lines.append("Version: 1")
        if let chainID { lines.append("Chain ID: \(chainID)") }
        lines.append("Nonce: \(nonce)")
        lines.append("Issued At: \(Self.format(issuedAt))")
        if let expirationTime { lines.append("Expiration Time: \(Self.format(expirationTime))") }
        if let notBefore { lines.append("Not Before: \(Self.format(notBefore))") }
        if let requestID { lines.append("Request ID: \(requestID)") }
        if !resources.isEmpty { lines += ["Resources:"] + resources.map { "- \($0.absoluteString)" } }
        return lines.joined(separator: "\n")
    }

    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// 16 random letters and digits (EIP-4361 asks for at least 8).
    static func newNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}

extension AuthClient {
    /// Signs in with a wallet's signature of a sign-in message (supabase-swift's
    /// `signInWithWeb3`): `message` exactly as the wallet signed it; `signature` as the wallet gave
    /// it (Ethereum: `0x` and 130 hex digits; Solana: the 64 bytes, here in base64).
    ///
    /// Throws ``LatchkeyError`` with code `web3_provider_disabled` when the server has the chain
    /// off, and `invalid_grant` when the signature, the app or the times do not hold (a message
    /// signs in once).
    @discardableResult
    public func signInWithWeb3(chain: Web3Chain, message: String, signature: String) async throws -> Session {
        try await ready()
        let body = Web3GrantRequest(chain: chain.rawValue, message: message, signature: signature)
        let session = try await api.send(try api.request("POST", "token", query: ["grant_type": "web3"], body: body), as: Session.self)
        await setSession(session, event: .signedIn)
        return session
    }

    /// ``signInWithWeb3(chain:message:signature:)`` for a message built here: an Ethereum
    /// signature in hex, a Solana one as the 64 bytes.
    @discardableResult
    public func signInWithWeb3(message: SignInMessage, signature: Data) async throws -> Session {
        try await signInWithWeb3(chain: message.chain, message: message.text, signature: Self.encoded(signature, for: message.chain))
    }

    /// Links the wallet that signed `message` to the signed-in user, who can then sign in with
    /// either (Latchkey's extension of GoTrue's grant). Throws `identity_already_exists` when the
    /// wallet is someone's, and `insufficient_aal` when the user has a second factor this session
    /// has not used. Unlink it as any identity (``unlinkIdentity(_:)``), unless it is the last.
    @discardableResult
    public func linkWeb3(message: SignInMessage, signature: Data) async throws -> Session {
        let body = Web3GrantRequest(
            chain: message.chain.rawValue, message: message.text, signature: Self.encoded(signature, for: message.chain), linkIdentity: true
        )
        let session = try await withSession { session in
            try await api.send(
                try api.request("POST", "token", query: ["grant_type": "web3"], body: body, bearer: session.accessToken), as: Session.self)
        }
        await setSession(session, event: .userUpdated)
        return session
    }

    /// Signs in with the embedded signer's key as a wallet: Solana (its Ed25519 key); Ethereum
    /// keys are not made in the SDK (no secp256k1 library is available to it on every platform).
    @discardableResult
    public func signInWithEmbeddedWallet(_ signer: EmbeddedSigner, chain: Web3Chain = .solana, uri: URL) async throws -> Session {
        guard chain == .solana else {
            throw LatchkeyError(code: .signerNotConfigured, message: "The embedded signer holds an Ed25519 key: a Solana wallet")
        }
        return try await signer.signInWithSolana(uri: uri)
    }

    static func encoded(_ signature: Data, for chain: Web3Chain) -> String {
        chain == .ethereum ? "0x" + signature.map { String(format: "%02x", $0) }.joined() : signature.base64EncodedString()
    }
}
