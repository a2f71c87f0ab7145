#if canImport(CryptoKit) && canImport(LocalAuthentication) && canImport(Security) && !os(tvOS) && !os(watchOS)
    import CryptoKit
    import Foundation
    import LocalAuthentication
    import Security

    /// Keeps device keys in the Secure Enclave: the private key never leaves it, and each
    /// signature needs the user's biometrics (or, with ``Biometry/userPresence``, the passcode).
    ///
    /// On iOS, iPadOS, Mac Catalyst, macOS and visionOS. tvOS and watchOS have no Touch ID or Face
    /// ID (and no `LAContext.localizedReason`): there the SDK keeps device keys in its storage
    /// (``SoftwareDeviceKeyStore``).
    ///
    /// Only the enclave's opaque handle for the key is kept in the keychain, on this device only
    /// (never in a backup). A handle this enclave cannot open (one an earlier SDK let a backup
    /// carry to another phone) counts as a lost key, and
    /// ``AuthClient/signInWithDeviceKey(reason:)`` asks the app to enrol again; any other failure
    /// (the enclave busy, the user cancelling) keeps the enrollment.
    public struct SecureEnclaveDeviceKeyStore: DeviceKeyStore {
        /// How often the user is asked.
        public enum Prompt: Sendable, Equatable {
            /// Every signature asks (the default).
            case everySignature
            /// A device unlock within this many seconds (at most 300) counts as asking.
            case reuseUnlock(seconds: TimeInterval)
        }

        /// What unlocks the key.
        public enum Biometry: Sendable, Equatable {
            /// The fingerprints or face enrolled now; enrolling another one loses the key (the
            /// strictest, and the default).
            case currentSet
            /// Any enrolled fingerprint or face.
            case any
            /// Biometrics or the device passcode.
            case userPresence
        }

        /// How often the user is asked.
        public let prompt: Prompt
        /// What unlocks the key.
        public let biometry: Biometry
        let handles: KeychainSessionStorage

        /// Creates a store; `service` names the keychain items that hold the key handles.
        public init(
            prompt: Prompt = .everySignature, biometry: Biometry = .currentSet,
            service: String = (Bundle.main.bundleIdentifier ?? "latchkey") + ".device-keys"
        ) {
            self.prompt = prompt
            self.biometry = biometry
            self.handles = KeychainSessionStorage(service: service)
        }

        /// Whether this device has a Secure Enclave.
        public static var isAvailable: Bool { SecureEnclave.isAvailable }

        func accessControl() throws -> SecAccessControl {
            let unlock: SecAccessControlCreateFlags =
                switch biometry {
                case .currentSet: .biometryCurrentSet
                case .any: .biometryAny
                case .userPresence: .userPresence
                }
            var error: Unmanaged<CFError>?
            guard
                let control = SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, unlock], &error)
            else {
                throw LatchkeyError(code: .deviceKeyUnavailable, message: "Cannot protect the device key: \(String(describing: error))")
            }
            return control
        }

        /// Creates a key in the Secure Enclave and keeps its handle in the keychain.
        public func createKey(tag: String) async throws -> P256.Signing.PublicKey {
            guard SecureEnclave.isAvailable else {
                throw LatchkeyError(code: .deviceKeyUnavailable, message: "This device has no Secure Enclave")
            }
            let key: SecureEnclave.P256.Signing.PrivateKey
            do {
                key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: try accessControl())
            } catch let error as LatchkeyError {
                throw error
            } catch {
                throw LatchkeyError(code: .deviceKeyUnavailable, message: "The Secure Enclave refused a new key: \(error)")
            }
            try await handles.saveSecret(key.dataRepresentation, key: tag, protection: .thisDevice)
            return key.publicKey
        }

        /// Asks the user (showing `reason`) and signs in the enclave; `nil` when the key is lost.
        public func sign(_ data: Data, tag: String, reason: String) async throws -> Data? {
            guard let handle = try await handles.loadSecret(key: tag, reason: reason) else { return nil }
            let context = LAContext()
            context.localizedReason = reason
            if case .reuseUnlock(let seconds) = prompt {
                context.touchIDAuthenticationAllowableReuseDuration = min(
                    max(0, seconds), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            }
            let key: SecureEnclave.P256.Signing.PrivateKey
            do {
                key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle, authenticationContext: context)
            } catch is CryptoKitError {
                // A handle of another enclave (a restored backup): the key is lost.
                return nil
            } catch {
                throw LatchkeyError(code: .deviceKeyUnavailable, message: "The Secure Enclave cannot open the device key now: \(error)")
            }
            do {
                return try key.signature(for: data).rawRepresentation
            } catch let error as LAError {
                switch error.code {
                case .userCancel, .appCancel, .systemCancel, .userFallback:
                    throw LatchkeyError(code: .userCancelled, message: "The user cancelled the sign-in")
                case .invalidContext, .biometryNotEnrolled:
                    // New or no biometrics: a `.currentSet` key can never be unlocked again.
                    return nil
                default:
                    throw LatchkeyError(code: .deviceKeyUnavailable, message: "The device key cannot be used now: \(error)")
                }
            } catch {
                throw LatchkeyError(code: .deviceKeyUnavailable, message: "The device key cannot be used now: \(error)")
            }
        }

        /// Forgets the key's handle (the enclave then has no way to reach the key).
        public func deleteKey(tag: String) async throws {
            try await handles.remove(key: tag)
        }
    }
#endif
