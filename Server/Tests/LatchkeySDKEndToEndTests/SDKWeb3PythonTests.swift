import Foundation
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// #41's "done when", through the SDK's call: a MetaMask-style signature made by PyPI's
/// `eth-account` and a Solana signature made by PyNaCl, over messages the SDK built, each sign a
/// user in against a live server. The Python libraries run as the tests' `python3` (the virtual
/// environment `scripts/test` puts first on the PATH); without them the test says so.
@Suite struct SDKWeb3PythonTests {
    /// Runs `script` with `python3`, `input` on its standard input; its standard output's lines.
    static func python(_ script: String, input: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PythonMissing() }
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    struct PythonMissing: Error {}

    static let hasWallets: Bool = (try? python("import eth_account, nacl, base58", input: "")) != nil

    static let uri = URL(string: "https://app.example.com/login")!

    @Test(
        .enabled(if: hasWallets, "needs eth-account, PyNaCl and base58 (Server/Tests/compat/requirements.txt; scripts/test installs them)"))
    func ethAccountAndPyNaClSignaturesSignInThroughTheSDK() async throws {
        try await LiveServer.run(configure: { configuration in
            configuration.auth.siteURL = "https://app.example.com"
            configuration.auth.web3 = Web3SignIn.Settings(ethereum: true, solana: true)
        }) { server in
            // Ethereum: the account is made in Python; the SDK builds the message; eth-account signs it as MetaMask does.
            let key = try Self.python(
                "from eth_account import Account; a = Account.create(); print(a.key.hex()); print(a.address)", input: "")
            let message = SignInMessage(chain: .ethereum, address: key[1], uri: Self.uri, statement: "Sign in to Example")
            let signed = try Self.python(
                """
                import sys
                from eth_account import Account
                from eth_account.messages import encode_defunct
                print(Account.sign_message(encode_defunct(text=sys.stdin.read()), private_key="\(key[0])").signature.to_0x_hex())
                """, input: message.text)
            let auth = server.client()
            let session = try await auth.signInWithWeb3(chain: .ethereum, message: message.text, signature: signed[0])
            #expect(session.user.identities?.first?.identityData["sub"] == .string("web3:ethereum:\(key[1])"))

            // Solana: PyNaCl's key and signature over the SDK's message.
            let wallet = try Self.python(
                "import base58\nfrom nacl.signing import SigningKey\nk = SigningKey.generate()\nprint(bytes(k).hex())\nprint(base58.b58encode(bytes(k.verify_key)).decode())",
                input: "")
            let solana = SignInMessage(chain: .solana, address: wallet[1], uri: Self.uri)
            let signature = try Self.python(
                """
                import sys, base64
                from nacl.signing import SigningKey
                print(base64.b64encode(SigningKey(bytes.fromhex("\(wallet[0])")).sign(sys.stdin.read().encode()).signature).decode())
                """, input: solana.text)
            let other = server.client()
            let solanaSession = try await other.signInWithWeb3(chain: .solana, message: solana.text, signature: signature[0])
            #expect(solanaSession.user.identities?.first?.identityData["sub"] == .string("web3:solana:\(wallet[1])"))
        }
    }
}
