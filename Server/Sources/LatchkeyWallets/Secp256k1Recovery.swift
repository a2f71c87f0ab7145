import CSecp256k1
import LatchkeyCore

/// Public-key recovery on secp256k1 with Debian's libsecp256k1 (Bitcoin Core's library; its
/// recovery module): what an Ethereum `personal_sign` signature proves. No Swift package here
/// offers secp256k1, and the curve is not one to implement by hand.
public struct Secp256k1Recovery: EthereumSignatureRecovering {
    public init() {}

    public func recoverPublicKey(digest: [UInt8], signature: [UInt8], recoveryID: Int32) -> [UInt8]? {
        guard digest.count == 32, signature.count == 64, (0...3).contains(recoveryID) else { return nil }
        let context = Secp256k1Context.shared.pointer
        var recoverable = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_recoverable_signature_parse_compact(context, &recoverable, signature, recoveryID) == 1 else {
            return nil
        }
        var key = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(context, &key, &recoverable, digest) == 1 else { return nil }
        var serialized = [UInt8](repeating: 0, count: 65)
        var length = 65
        guard secp256k1_ec_pubkey_serialize(context, &serialized, &length, &key, UInt32(SECP256K1_EC_UNCOMPRESSED)) == 1,
            length == 65, serialized[0] == 0x04
        else { return nil }
        return Array(serialized[1...])
    }
}

/// One context for the process: libsecp256k1's contexts are safe to share for verification and
/// recovery, which never change them.
final class Secp256k1Context: @unchecked Sendable {
    static let shared = Secp256k1Context()
    let pointer: OpaquePointer

    private init() {
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            fatalError("libsecp256k1 could not make a context")
        }
        pointer = context
    }
}
