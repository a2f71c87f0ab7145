import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The wallet sign-in's pure parts (#41): Keccak-256 against published vectors, EIP-55, base58,
/// the SIWE/SIWS reader against GoTrue's examples and a hostile table, Solana's Ed25519 (raw and
/// in a Ledger's off-chain envelope) with GoTrue's signatures.
@Suite struct Web3MessageTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The Keccak team's and Ethereum's vectors (empty, "abc", one and two blocks at the 136-byte
    /// rate's edges); pycryptodome checks the same in the compat tests.
    @Test(arguments: [
        ("", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
        ("abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"),
        (String(repeating: "a", count: 135), "34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446"),
        (String(repeating: "a", count: 136), "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e"),
        (String(repeating: "a", count: 200), "96ea54061def936c4be90b518992fdc6f12f535068a256229aca54267b4d084d"),
    ])
    func keccak256(input: String, digest: String) {
        #expect(Self.hex(Keccak256.hash(Array(input.utf8))) == digest)
    }

    /// EIP-55's own examples.
    @Test(arguments: [
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ])
    func eip55(address: String) throws {
        let bytes = try #require(hexBytes(address.dropFirst(2)))
        #expect(Web3Signatures.checksummed(bytes) == address)
    }

    @Test func base58RoundTripsAndRefusesOtherCharacters() throws {
        let address = "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8"
        let key = try #require(Base58.decode(address))
        #expect(key.count == 32 && Base58.encode(key) == address)
        #expect(Base58.decode("11") == [0, 0] && Base58.encode([0, 0, 1]) == "112")
        for bad in ["0abc", "Oabc", "Iabc", "labc", "ab c", String(repeating: "z", count: 129)] { #expect(Base58.decode(bad) == nil) }
    }

    static let ethereum =
        "example.com wants you to sign in with your Ethereum account:\n0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E\n\nSign in to Example App\n\nURI: https://example.com\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: 2025-01-01T00:00:00.000Z"
    static let solana =
        "supabase.com wants you to sign in with your Solana account:\n2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8\n\nStatement\n\nURI: https://supabase.com/\nVersion: 1\nIssued At: 2025-03-29T00:00:00Z"

    @Test func gotruesExamplesRead() throws {
        let message = try Web3Message.parse(Self.ethereum, chain: .ethereum)
        #expect(message.domain == "example.com" && message.address == "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E")
        #expect(message.statement == "Sign in to Example App" && message.uri.description == "https://example.com/")
        #expect(message.chainID == "1" && message.nonce == "12345678" && message.issuedAt == Date(timeIntervalSince1970: 1_735_689_600))
        let solana = try Web3Message.parse(Self.solana, chain: .solana)
        #expect(solana.statement == "Statement" && solana.chainID == nil && solana.expirationTime == nil)
        // Fields in another order, no statement, resources, a Solana network: as GoTrue reads them.
        let other = try Web3Message.parse(
            "domain.com wants you to sign in with your Solana account:\n4Cw1koUQtqybLFem7uqhzMBznMPGARbFS4cjaYbM9RnR\n\nStatement\n\nVersion: 1\nURI: https://domain.com\nIssued At: 2025-01-01T00:00:00Z\nNonce: 123\nRequest ID: abcdef\nChain ID: solana:testnet\nResources:\n- https://domain.com/a\n- https://domain.com/b",
            chain: .solana)
        #expect(other.chainID == "solana:testnet" && other.requestID == "abcdef" && other.resources.count == 2)
    }

    @Test(arguments: [
        ("a\nb\nc", "siwe: message needs at least 6 lines"),
        (
            ethereum.replacingOccurrences(of: "Ethereum account", with: "Solana account"),
            "siwe: message first line does not end in \" wants you to sign in with your Ethereum account:\""
        ),
        (
            ethereum.replacingOccurrences(of: "example.com wants", with: "https://example.com wants"),
            "siwe: domain in first line of message is not valid"
        ),
        (
            ethereum.replacingOccurrences(of: "example.com wants", with: "127.0.0.1 wants"),
            "siwe: domain in first line of message is not valid"
        ),
        (ethereum.replacingOccurrences(of: "0x196a", with: "0X196a"), "siwe: wallet address is not a valid Ethereum address"),
        (ethereum.replacingOccurrences(of: "2b7E\n\n", with: "2b7E\nx\n"), "siwe: third line must be empty"),
        (ethereum.replacingOccurrences(of: "URI: https://example.com", with: "URI: javascript:alert(1)"), "siwe: URI is not valid"),
        (ethereum.replacingOccurrences(of: "URI: https://example.com\n", with: ""), "siwe: URI is not specified"),
        (ethereum.replacingOccurrences(of: "Version: 1", with: "Version: 2"), "siwe: Version value is not supported, expected 1 got \"2\""),
        (ethereum.replacingOccurrences(of: "Chain ID: 1", with: "Chain ID: eip155:1"), "siwe: Chain ID is not valid"),
        (ethereum.replacingOccurrences(of: "Chain ID: 1", with: "Chain ID: 0"), "siwe: Chain ID is not valid"),
        (
            ethereum.replacingOccurrences(of: "2025-01-01T00:00:00.000Z", with: "yesterday"),
            "siwe: Issued At is not a valid ISO8601 timestamp"
        ),
        (ethereum + "\nExpiration Time: 2024-01-01T00:00:00Z", "siwe: Issued At is after Expiration Time"),
        (
            ethereum + "\nNot Before: 2026-01-01T00:00:00Z\nExpiration Time: 2025-06-01T00:00:00Z",
            "siwe: Not Before is after Expiration Time"
        ),
        (ethereum + "\nno colon here", "siwe: encountered unparsable line at index 10"),
        (ethereum + "\nResources:\n- not a uri", "siwe: Resource at position 0 has invalid URI"),
        // Beyond GoTrue: a field twice (the wallet showed one, the server would read the other), carriage returns.
        (ethereum + "\nURI: https://evil.example", "siwe: URI is given more than once"),
        (ethereum.replacingOccurrences(of: "\n", with: "\r\n"), "siwe: message must not contain carriage returns"),
    ])
    func hostileMessagesAreRefused(text: String, error: String) {
        #expect(throws: Web3Message.Invalid(message: error)) { try Web3Message.parse(text, chain: .ethereum) }
    }

    @Test func solanaSignaturesRawAndThroughALedger() throws {
        func bytes(_ base64: String) throws -> [UInt8] { try #require(Data(base64Encoded: base64).map { [UInt8]($0) }) }
        let raw = try bytes("BQxBJ+g2xbMh0LqwYR4ULJ4l7jXFmz33urmp534MS0x7nrGRe2xYdFq41FiGrySX6RipzGqX4kS2vkQmi/+JCg==")
        #expect(
            Web3Signatures.solanaSigned(
                Self.solana, signature: raw, address: "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8", domain: "supabase.com"))
        #expect(
            !Web3Signatures.solanaSigned(
                Self.solana + " ", signature: raw, address: "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8", domain: "supabase.com"))
        let ledgerMessage =
            "supabase.com wants you to sign in with your Solana account:\nEqzxWVyBpLD34SV9w1FFpPPvbfrfAXdiDVg1cyHTR1Rv\n\nI confirm ownership of this wallet\n\nVersion: 1\nURI: https://supabase.com/\nIssued At: 2025-07-29T22:29:52.235Z"
        let ledger = try bytes("9slc0BBJw16TzWYs4/op8na3vt9E0CKt0FL5pqhzTDxvqF/txpbdo+ULDCeSzrDE/uJWmpMQw+hF0rkDj4Q0Bw==")
        #expect(
            Web3Signatures.solanaSigned(
                ledgerMessage, signature: ledger, address: "EqzxWVyBpLD34SV9w1FFpPPvbfrfAXdiDVg1cyHTR1Rv", domain: "supabase.com"))
        // A key that is not 32 bytes of base58 is no signer (GoTrue answers 500 here).
        #expect(
            !Web3Signatures.solanaSigned(
                Self.solana, signature: raw, address: "0EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8", domain: "supabase.com"))
        #expect(
            !Web3Signatures.solanaSigned(
                Self.solana, signature: Array(raw.prefix(63)), address: "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8",
                domain: "supabase.com"))
    }
}
