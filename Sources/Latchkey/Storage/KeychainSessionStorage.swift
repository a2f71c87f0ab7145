#if canImport(Security)
    import Foundation
    import Security
    #if canImport(LocalAuthentication) && !os(tvOS) && !os(watchOS)
        import LocalAuthentication
    #endif

    /// Keeps sessions in the keychain as generic passwords, readable after the first unlock
    /// (so background refresh works), optionally in a shared access group; secrets (device keys,
    /// a signer's key, a vault) on this device only, optionally behind the user's presence.
    ///
    /// A locked device (`errSecInteractionNotAllowed`) is reported as `storage_unavailable`: the
    /// client tries again later and does not sign the user out.
    public struct KeychainSessionStorage: SessionStorage {
        /// The keychain service the items are stored under; by default the bundle identifier.
        public let service: String
        /// The keychain access group shared with other apps, or `nil`.
        public let accessGroup: String?

        /// Creates a storage for `service`, optionally in a shared `accessGroup`.
        public init(service: String = Bundle.main.bundleIdentifier ?? "latchkey", accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        func query(_ key: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: key,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// Reads the item for `key`; `nil` when there is none.
        public func load(key: String) async throws -> Data? {
            var query = query(key)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: AnyObject?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess: return result as? Data
            case errSecItemNotFound: return nil
            default: throw Self.error(status)
            }
        }

        /// Adds or updates the item for `key`, readable after the first unlock.
        public func save(_ data: Data, key: String) async throws {
            try write(data, key: key, attributes: [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])
        }

        /// Adds or updates `key` with `data` and `attributes`.
        func write(_ data: Data, key: String, attributes: [String: Any]) throws {
            var attributes = attributes
            attributes[kSecValueData as String] = data
            var status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                let insert = query(key).merging(attributes) { _, new in new }
                status = SecItemAdd(insert as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw Self.error(status) }
        }

        /// Deletes the item for `key`, if any.
        public func remove(key: String) async throws {
            let status = SecItemDelete(query(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status) }
        }

        /// Stores a secret on this device only (`…ThisDeviceOnly`: never in a backup), behind the
        /// user's presence when `protection` asks. An item already there is replaced, deleted then
        /// added (one behind an access control cannot be changed in place, nor changed to another
        /// protection); an add that fails for another reason (a device without a passcode) leaves
        /// the old one.
        public func saveSecret(_ data: Data, key: String, protection: SecretProtection) async throws {
            var attributes: [String: Any] = [kSecValueData as String: data]
            switch protection {
            case .thisDevice:
                attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .userPresence, .biometryCurrentSet:
                var failure: Unmanaged<CFError>?
                let flags: SecAccessControlCreateFlags = protection == .userPresence ? .userPresence : .biometryCurrentSet
                guard
                    let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, &failure)
                else {
                    let reason = failure.map { String(describing: $0.takeRetainedValue()) } ?? "no reason given"
                    throw LatchkeyError(code: .storageUnavailable, message: "The keychain cannot protect the secret: \(reason)")
                }
                attributes[kSecAttrAccessControl as String] = control
            }
            let insert = query(key).merging(attributes) { _, new in new }
            var status = SecItemAdd(insert as CFDictionary, nil)
            if status == errSecDuplicateItem {
                try await remove(key: key)
                status = SecItemAdd(insert as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw Self.error(status) }
        }

        /// Reads a secret; one behind the user's presence asks with `reason` (a cancel is
        /// `user_cancelled`). A secret an earlier SDK stored readable on other devices is moved to
        /// this device only as it is read.
        public func loadSecret(key: String, reason: String) async throws -> Data? {
            var query = query(key)
            query[kSecReturnData as String] = true
            query[kSecReturnAttributes as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            #if canImport(LocalAuthentication) && !os(tvOS) && !os(watchOS)
                let context = LAContext()
                context.localizedReason = reason
                query[kSecUseAuthenticationContext as String] = context
            #endif
            var result: AnyObject?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess: break
            case errSecItemNotFound: return nil
            case errSecUserCanceled: throw LatchkeyError(code: .userCancelled, message: "The user cancelled")
            default: throw Self.error(status)
            }
            guard let item = result as? [String: Any], let data = item[kSecValueData as String] as? Data else { return nil }
            let accessible = item[kSecAttrAccessible as String] as? String
            if accessible == kSecAttrAccessibleAfterFirstUnlock as String || accessible == kSecAttrAccessibleWhenUnlocked as String {
                // Stored by an earlier SDK like a session: keep it on this device from now on.
                try? write(data, key: key, attributes: [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly])
            }
            return data
        }

        static func error(_ status: OSStatus) -> LatchkeyError {
            // errSecInteractionNotAllowed (locked device) and every other failure mean "not now".
            LatchkeyError(code: .storageUnavailable, message: "Keychain error \(status)")
        }
    }
#endif
