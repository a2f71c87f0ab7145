#if canImport(Security)
    import Foundation
    import Security

    /// Keeps sessions in the keychain as generic passwords, readable after the first unlock
    /// (so background refresh works), optionally in a shared access group.
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
            let attributes: [String: Any] = [
                kSecValueData as String: data, kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
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

        static func error(_ status: OSStatus) -> LatchkeyError {
            // errSecInteractionNotAllowed (locked device) and every other failure mean "not now".
            LatchkeyError(code: .storageUnavailable, message: "Keychain error \(status)")
        }
    }
#endif
