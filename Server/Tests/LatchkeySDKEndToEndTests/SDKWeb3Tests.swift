import Crypto
import Foundation
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// Wallet sign-in through the SDK against a live server (#41): a Solana key signs the message the
/// SDK builds; the embedded signer signs in as a Solana wallet; the SDK's messages read back
/// through the server's parser field for field.
@Suite struct SDKWeb3Tests {
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.auth.siteURL = "https://app.example.com"
        configuration.auth.web3 = Web3SignIn.Settings(ethereum: true, solana: true)
    }

    static let uri = URL(string: "https://app.example.com/login")!

    @Test func aSolanaWalletSignsInThroughTheSDK() async throws {
        try await LiveServer.run(configure: Self.configure) { server in
            let auth = server.client()
            let wallet = Curve25519.Signing.PrivateKey()
            let address = Base58.encode([UInt8](wallet.publicKey.rawRepresentation))
            let message = SignInMessage(chain: .solana, address: address, uri: Self.uri, statement: "Sign in to Example")
            let session = try await auth.signInWithWeb3(message: message, signature: try wallet.signature(for: Data(message.text.utf8)))
            #expect(session.user.identities?.first?.provider == "web3")
            #expect(try await auth.user().id == session.user.id)
            // The same signed message again: refused.
            let again = message
            await #expect {
                try await auth.signInWithWeb3(message: again, signature: try wallet.signature(for: Data(again.text.utf8)))
            } throws: { ($0 as? LatchkeyError)?.status == 400 }
        }
    }

    @Test func theEmbeddedSignerSignsInAsASolanaWallet() async throws {
        try await LiveServer.run(configure: Self.configure) { server in
            let auth = server.client()
            _ = try await auth.signUp(email: "wallet@example.com", password: "correct horse battery staple")
            _ = try await auth.verifyEmail(email: "wallet@example.com", code: try await server.latestCode("wallet@example.com"))
            let signer = EmbeddedSigner(auth: auth, kdf: ScryptParameters(logN: 15))
            let key = try await signer.configure(recovery: .automatic)
            let address = try #require(await signer.solanaAddress)
            #expect(Base58.decode(address).map { Data($0) } == key.rawRepresentation)
            let stellar = try #require(await signer.stellarAddress)
            #expect(stellar.hasPrefix("G") && stellar.count == 56)
            let session = try await signer.signInWithSolana(uri: Self.uri)
            let subject = session.user.identities?.first?.identityData["sub"]
            #expect(subject == .string("web3:solana:\(address)"))
        }
    }

    @Test(arguments: [Web3Chain.ethereum, .solana])
    func theSDKsMessagesReadBackThroughTheServersParser(chain: Web3Chain) throws {
        let address = chain == .ethereum ? "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E" : "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8"
        let built = SignInMessage(
            chain: chain, address: address, uri: Self.uri, statement: "Sign in to Example", requestID: "r-1",
            resources: [URL(string: "https://app.example.com/terms")!])
        let read = try Web3Message.parse(built.text, chain: chain == .ethereum ? .ethereum : .solana)
        #expect(read.domain == built.domain && read.address == address && read.statement == built.statement)
        #expect(read.uri.description == built.uri.absoluteString && read.chainID == built.chainID && read.nonce == built.nonce)
        #expect(abs(read.issuedAt.timeIntervalSince(built.issuedAt)) < 0.001)
        #expect(abs((read.expirationTime ?? .distantPast).timeIntervalSince(built.expirationTime ?? .distantFuture)) < 0.001)
        #expect(read.requestID == "r-1" && read.resources == ["https://app.example.com/terms"])
    }
}

extension SDKWeb3Tests {
    /// A real wallet's `personal_sign` (GoTrue's test vector, signed with ethers) through the
    /// SDK's call: the server set to GoTrue's test site and a validity that reaches back to the
    /// vector's `Issued At`.
    @Test func anEthereumWalletsSignatureSignsInThroughTheSDK() async throws {
        try await LiveServer.run(configure: { configuration in
            configuration.auth.siteURL = "https://example.com"
            configuration.auth.web3 = Web3SignIn.Settings(ethereum: true, ethereumValidity: 20 * 365 * 86400)
        }) { server in
            let auth = server.client()
            let message =
                "example.com wants you to sign in with your Ethereum account:\n0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E\n\nSign in to Example App\n\nURI: https://example.com\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: 2025-01-01T00:00:00.000Z"
            let signature =
                "0xee337880f195524c156b8cc5f425ffcedb9d94638a91fa41ba72e26d93f04c9d1c7bca7020071c34ef7527ed6389ee24b59de79deab4e9e8251e6ca1e195a56a1b"
            let session = try await auth.signInWithWeb3(chain: .ethereum, message: message, signature: signature)
            let subject = session.user.identities?.first?.identityData["sub"]
            #expect(subject == "web3:ethereum:0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E")
        }
    }
}
