// A test-only stand-in for Apple's CryptoKit: swift-crypto's `Crypto` (the same API; on Apple
// platforms `Crypto` re-exports CryptoKit) plus what only CryptoKit has, `SecureEnclave`, declared
// as CryptoKit.swiftinterface declares it (iPhoneOS 16.5 and 18.0: theos/sdks,
// xiangfeidexiaohuo/iOS-SDKs): `@available(iOS 13.0, macOS 10.15, macCatalyst 13.0, *)`, not on tvOS
// or watchOS, and `SecureEnclave.P256.Signing.PrivateKey` with no Sendable conformance in those
// interfaces (Apple's current documentation lists one; the SDK must not rely on either). The
// "enclave" keeps software keys in memory, reachable only through the handles it gave out.
// What is not Apple's API is under "Test controls" at the end.
@_exported import Crypto
import Foundation
import LocalAuthentication
import Security

public enum SecureEnclave {
    /// `public static var isAvailable: Swift.Bool { get }`
    public static var isAvailable: Bool { EnclaveStandIn.shared.isAvailable }

    public enum P256 {
        public enum Signing {
            /// `public struct PrivateKey` (no Sendable conformance in the interfaces read).
            public struct PrivateKey {
                /// `public let publicKey: CryptoKit.P256.Signing.PublicKey`
                public let publicKey: Crypto.P256.Signing.PublicKey
                /// `public let dataRepresentation: Foundation.Data`: an opaque handle only this enclave opens.
                public let dataRepresentation: Data
                let context: LAContext?

                /// `public init(compactRepresentable: Swift.Bool = true, accessControl: Security.SecAccessControl =
                /// SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!,
                /// authenticationContext: LocalAuthentication.LAContext? = nil) throws`
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!,
                    authenticationContext: LAContext? = nil
                ) throws {
                    guard EnclaveStandIn.shared.isAvailable else { throw CryptoKitError.underlyingCoreCryptoError(error: -4) }
                    let (handle, key) = EnclaveStandIn.shared.create(accessControl)
                    self.dataRepresentation = handle
                    self.publicKey = key.publicKey
                    self.context = authenticationContext
                }

                /// `public init(dataRepresentation: Foundation.Data, authenticationContext: LocalAuthentication.LAContext? = nil) throws`
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                    if let error = EnclaveStandIn.shared.openError { throw error }
                    guard let key = EnclaveStandIn.shared.key(dataRepresentation) else {
                        // Another device's handle, or none of this enclave's.
                        throw CryptoKitError.underlyingCoreCryptoError(error: -3)
                    }
                    self.dataRepresentation = dataRepresentation
                    self.publicKey = key.publicKey
                    self.context = authenticationContext
                }

                /// `public func signature<D>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature`
                /// `where D : Foundation.DataProtocol`
                public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    guard let key = EnclaveStandIn.shared.key(dataRepresentation) else {
                        throw CryptoKitError.underlyingCoreCryptoError(error: -3)
                    }
                    try EnclaveStandIn.shared.ask(context)
                    return try key.signature(for: data)
                }
            }
        }
    }
}

// MARK: Test controls (not Apple's API)

/// The stand-in enclave: which handles it knows, whether it exists, and what the user answers.
public final class EnclaveStandIn: @unchecked Sendable {
    public static let shared = EnclaveStandIn()

    private let lock = NSLock()
    private var keys: [Data: (key: Crypto.P256.Signing.PrivateKey, control: SecAccessControl)] = [:]
    private var available = true
    private var failure: (any Error)?
    private var opening: (any Error)?
    private var reasons: [String] = []

    public var isAvailable: Bool {
        get { lock.withLock { available } }
        set { lock.withLock { available = newValue } }
    }

    /// `nil`: signing passes; otherwise what every signature throws (an `LAError` the user caused).
    public var signingError: (any Error)? {
        get { lock.withLock { failure } }
        set { lock.withLock { failure = newValue } }
    }

    /// `nil`: handles open; otherwise what opening one throws (the enclave busy, a bug).
    public var openError: (any Error)? {
        get { lock.withLock { opening } }
        set { lock.withLock { opening = newValue } }
    }

    /// The reasons signatures were asked with.
    public var promptReasons: [String] { lock.withLock { reasons } }

    /// The access control a handle's key was made with.
    public func accessControl(of handle: Data) -> SecAccessControl? { lock.withLock { keys[handle]?.control } }

    /// Forgets every key (a phone restored from another one's backup has none of them).
    public func reset() {
        lock.withLock {
            keys = [:]
            available = true
            failure = nil
            opening = nil
            reasons = []
        }
    }

    func create(_ control: SecAccessControl) -> (Data, Crypto.P256.Signing.PrivateKey) {
        let key = Crypto.P256.Signing.PrivateKey()
        let handle = Data("enclave-handle-".utf8) + Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        lock.withLock { keys[handle] = (key, control) }
        return (handle, key)
    }

    func key(_ handle: Data) -> Crypto.P256.Signing.PrivateKey? { lock.withLock { keys[handle]?.key } }

    func ask(_ context: LAContext?) throws {
        let reason = context?.localizedReason ?? ""
        try lock.withLock {
            reasons.append(reason)
            if let failure { throw failure }
        }
    }
}
