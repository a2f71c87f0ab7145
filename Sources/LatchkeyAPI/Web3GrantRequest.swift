import Foundation

/// `POST /token?grant_type=web3`: a wallet's signed "Sign in with Ethereum" (EIP-4361) or "Sign in
/// with Solana" message (GoTrue's `Web3GrantParams`, as supabase-js's `signInWithWeb3` sends it).
public struct Web3GrantRequest: Codable, Sendable, Equatable {
    /// `ethereum` or `solana`.
    public var chain: String?
    /// The message exactly as the wallet signed it.
    public var message: String?
    /// Ethereum: `0x` and 130 hex digits (`r`, `s`, `v`); Solana: the 64-byte Ed25519 signature in base64.
    public var signature: String?
    /// Latchkey's extension: link the wallet to the signed-in user (the `Authorization` header's)
    /// instead of signing in, as `link_identity` does for id tokens.
    public var linkIdentity: Bool?

    public init(chain: String?, message: String?, signature: String?, linkIdentity: Bool? = nil) {
        self.chain = chain
        self.message = message
        self.signature = signature
        self.linkIdentity = linkIdentity
    }

    enum CodingKeys: String, CodingKey {
        case chain, message, signature
        case linkIdentity = "link_identity"
    }
}
