import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Wallet sign-in in the SDK (#41): the sign-in message's text, the grant as supabase-js sends it,
/// and the embedded signer's Solana and Stellar addresses.
@Suite struct Web3Tests {
    static let issued = Date(timeIntervalSince1970: 1_735_689_600)

    @Test func theMessageIsEIP4361sText() throws {
        let message = SignInMessage(
            chain: .ethereum, address: "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E",
            uri: try #require(URL(string: "https://app.example.com/login")),
            statement: "Sign in to Example", nonce: "abcdefgh12345678", issuedAt: Self.issued, validity: 300,
            resources: [try #require(URL(string: "https://app.example.com/terms"))])
        #expect(
            message.text
                == """
                app.example.com wants you to sign in with your Ethereum account:
                0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E

                Sign in to Example

                URI: https://app.example.com/login
                Version: 1
                Chain ID: 1
                Nonce: abcdefgh12345678
                Issued At: 2025-01-01T00:00:00.000Z
                Expiration Time: 2025-01-01T00:05:00.000Z
                Resources:
                - https://app.example.com/terms
                """)
        let solana = SignInMessage(
            chain: .solana, address: "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8",
            uri: try #require(URL(string: "http://localhost:5173/")))
        #expect(solana.domain == "localhost:5173" && solana.chainID == "solana:mainnet" && solana.nonce.count == 16)
        #expect(solana.text.hasPrefix("localhost:5173 wants you to sign in with your Solana account:\n2EZE"))
        #expect(!solana.text.contains("\n\n\n"), "no statement, no empty statement block")
    }

    @Test func siweAndSiwsAreTheTwoChainsMessages() throws {
        let uri = try #require(URL(string: "https://app.example.com"))
        let siwe = SignInMessage.siwe(address: "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E", uri: uri, chainID: 137)
        #expect(siwe.chain == .ethereum && siwe.chainID == "137" && siwe.text.contains("Chain ID: 137\n"))
        let siws = SignInMessage.siws(address: "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8", uri: uri, network: "solana:devnet")
        #expect(siws.chain == .solana && siws.text.contains("your Solana account") && siws.text.contains("Chain ID: solana:devnet"))
    }

    @Test func theGrantIsSentAsSupabaseJSSendsIt() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let message = SignInMessage(
            chain: .ethereum, address: "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E",
            uri: try #require(URL(string: "https://app.example.com")))
        try await auth.signInWithWeb3(message: message, signature: Data([0xAB, 0x01]))
        let request = try #require(await transport.requests.first)
        #expect(request.query == ["grant_type": "web3"])
        #expect(request.json == ["chain": "ethereum", "message": .string(message.text), "signature": "0xab01"])
        #expect(await auth.currentSession?.accessToken == "access-1")
        let solana = SignInMessage(chain: .solana, address: "x", uri: try #require(URL(string: "https://app.example.com")))
        try await auth.signInWithWeb3(message: solana, signature: Data([0xFF, 0xEE]))
        #expect(try #require(await transport.requests.last).json?["signature"] == "/+4=")
    }

    @Test func linkingSendsTheUsersTokenAndTheExtension() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let stored = try #require(await auth.currentSession)
        let message = SignInMessage(chain: .solana, address: "x", uri: try #require(URL(string: "https://app.example.com")))
        try await auth.linkWeb3(message: message, signature: Data([1]))
        let request = try #require(await transport.requests.last)
        #expect(request.headers["Authorization"] == "Bearer \(stored.accessToken)" && request.query == ["grant_type": "web3"])
        #expect(request.json?["link_identity"] == true && request.json?["signature"] == "AQ==")
    }

    /// Stellar's own example: the all-zero key's account id.
    @Test func stellarAddressesAreStrKey() {
        #expect(StrKey.accountID([UInt8](repeating: 0, count: 32)) == "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF")
        #expect(StrKey.crc16(Array("123456789".utf8)) == 0x31C3)
    }
}
