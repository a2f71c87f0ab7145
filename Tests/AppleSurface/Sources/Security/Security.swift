// A test-only stand-in for the keychain calls of Apple's Security framework, for type-checking the
// SDK's Apple-only code on Linux and running it against a keychain kept in memory. Declarations are
// written as Swift imports the C headers (iPhoneOS 16.5 and 18.0/18.1 SDKs: theos/sdks,
// xiangfeidexiaohuo/iOS-SDKs, xybp888/iOS-SDKs); the header is named above each group. None is
// annotated NS_SWIFT_SENDABLE or NS_SWIFT_UI_ACTOR. CoreFoundation's types are Foundation's
// toll-free bridged classes here, as `as CFDictionary` and `as String` bridge them on Apple
// platforms. Built in Swift 5 mode, as Swift treats a Clang module. What is not Apple's API is under
// "Test controls" at the end.
import Foundation

// MARK: CFBase.h, CFDictionary.h, CFString.h, CFError.h, MacTypes.h

public typealias CFTypeRef = AnyObject
public typealias CFDictionary = NSDictionary
public typealias CFString = NSString
public typealias CFError = NSError
public typealias CFOptionFlags = UInt
/// `CFAllocatorRef`; the SDK passes only `nil` (the default allocator).
public final class CFAllocator {}
public typealias OSStatus = Int32

// MARK: SecBase.h (the status codes: `enum { errSecSuccess = 0, … }`, imported as `var … { get }`)

public var errSecSuccess: OSStatus { 0 }
public var errSecUserCanceled: OSStatus { -128 }
public var errSecAuthFailed: OSStatus { -25293 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecMissingEntitlement: OSStatus { -34018 }

// MARK: SecItem.h (`extern const CFStringRef kSec…`, imported as `let`)

public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecAttrService: CFString = "svce"
public let kSecAttrAccount: CFString = "acct"
public let kSecAttrAccessGroup: CFString = "agrp"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccessControl: CFString = "accc"
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
public let kSecValueData: CFString = "v_Data"
public let kSecReturnData: CFString = "r_Data"
public let kSecReturnAttributes: CFString = "r_Attributes"
public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// API_AVAILABLE(macos(10.11), ios(9.0)): an `LAContext` whose `localizedReason` the prompt shows.
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// API_AVAILABLE(macos(10.15), ios(13.0)).
public let kSecUseDataProtectionKeychain: CFString = "nleg"

/// `OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef * __nullable CF_RETURNS_RETAINED result)`
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    Keychain.shared.copyMatching(query, result)
}

/// `OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef * __nullable CF_RETURNS_RETAINED result)`
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    Keychain.shared.add(attributes)
}

/// `OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)`
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    Keychain.shared.update(query, attributesToUpdate)
}

/// `OSStatus SecItemDelete(CFDictionaryRef query)`
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    Keychain.shared.delete(query)
}

// MARK: SecAccessControl.h

/// `typedef struct CF_BRIDGED_TYPE(id) __SecAccessControl *SecAccessControlRef`: a CF class, not Sendable.
public final class SecAccessControl {
    /// Test control: what it was made with.
    public let protection: String
    public let flags: SecAccessControlCreateFlags
    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }
}

/// `typedef CF_OPTIONS(CFOptionFlags, SecAccessControlCreateFlags)`
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// `SecAccessControlRef _Nullable SecAccessControlCreateWithFlags(CFAllocatorRef _Nullable allocator,
/// CFTypeRef protection, SecAccessControlCreateFlags flags, CFErrorRef *error)`
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    guard let protection = protection as? String, protection.hasSuffix("u") else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: "NSOSStatusErrorDomain", code: -50))
        return nil
    }
    return SecAccessControl(protection: protection, flags: flags)
}

// MARK: Test controls (not Apple's API)

/// The in-memory keychain behind the stand-in: generic passwords matched by class, service,
/// account and access group, as the real one matches them.
public final class Keychain: @unchecked Sendable {
    public static let shared = Keychain()

    /// One stored item: its attributes (`kSecAttr…` keys) and data.
    public struct Item {
        public var attributes: [String: Any]
        public var data: Data
        public var accessible: String? { attributes[kSecAttrAccessible as String] as? String }
        public var accessControl: SecAccessControl? { attributes[kSecAttrAccessControl as String] as? SecAccessControl }
        public var account: String? { attributes[kSecAttrAccount as String] as? String }
    }

    private let lock = NSLock()
    private var stored: [Item] = []
    private var failing: OSStatus?
    private var presence: (String?) -> OSStatus = { _ in 0 }
    private var reasons: [String?] = []

    /// Every item, in the order stored.
    public var items: [Item] { lock.withLock { stored } }
    /// The reasons shown by reads of items behind the user's presence.
    public var promptReasons: [String?] { lock.withLock { reasons } }

    /// Empties the keychain and clears every control.
    public func reset() {
        lock.withLock {
            stored = []
            failing = nil
            presence = { _ in 0 }
            reasons = []
        }
    }

    /// Every call fails with `status` (a locked device: `errSecInteractionNotAllowed`) until cleared with `nil`.
    public func failEveryCall(with status: OSStatus?) { lock.withLock { failing = status } }

    /// What the user does when a read of an item behind an access control asks for them: given
    /// the prompt's reason, `errSecSuccess`, `errSecUserCanceled` or `errSecAuthFailed`.
    public func whenAsked(_ answer: @escaping (String?) -> OSStatus) { lock.withLock { presence = answer } }

    /// Stores an item as an earlier app version did (tests of migrations).
    public func store(account: String, service: String, data: Data, accessible: CFString) {
        lock.withLock {
            stored.append(
                Item(
                    attributes: [
                        kSecClass as String: kSecClassGenericPassword as String, kSecAttrService as String: service,
                        kSecAttrAccount as String: account, kSecAttrAccessible as String: accessible as String,
                    ], data: data))
        }
    }

    static let identity = [kSecClass, kSecAttrService, kSecAttrAccount, kSecAttrAccessGroup].map { $0 as String }

    func dictionary(_ value: CFDictionary) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in value { result["\(key)"] = value }
        return result
    }

    func matches(_ item: Item, _ query: [String: Any]) -> Bool {
        Self.identity.allSatisfy { key in
            guard let wanted = query[key] else { return true }
            return "\(wanted)" == (item.attributes[key].map { "\($0)" } ?? "")
        }
    }

    func copyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        let query = dictionary(query)
        let (status, item, ask): (OSStatus, Item?, ((String?) -> OSStatus)?) = lock.withLock {
            if let failing { return (failing, nil, nil) }
            guard let item = stored.first(where: { matches($0, query) }) else { return (errSecItemNotFound, nil, nil) }
            return (errSecSuccess, item, item.accessControl == nil ? nil : presence)
        }
        guard status == errSecSuccess, let item else { return status }
        if let ask {
            // The prompt shows the reason of the LAContext passed (kSecUseAuthenticationContext).
            let context = query[kSecUseAuthenticationContext as String] as AnyObject?
            let reason = (context as? PromptReason)?.promptReason
            lock.withLock { reasons.append(reason) }
            let answer = ask(reason)
            guard answer == errSecSuccess else { return answer }
        }
        let wantsData = (query[kSecReturnData as String] as? Bool) == true
        let wantsAttributes = (query[kSecReturnAttributes as String] as? Bool) == true
        if wantsAttributes {
            var attributes = item.attributes
            if wantsData { attributes[kSecValueData as String] = item.data }
            result?.pointee = attributes as NSDictionary
        } else if wantsData {
            result?.pointee = item.data as NSData
        }
        return errSecSuccess
    }

    func add(_ attributes: CFDictionary) -> OSStatus {
        var attributes = dictionary(attributes)
        guard let data = attributes.removeValue(forKey: kSecValueData as String) as? Data else { return -50 }
        if attributes[kSecAttrAccessible as String] != nil, attributes[kSecAttrAccessControl as String] != nil { return -50 }
        return lock.withLock {
            if let failing { return failing }
            if stored.contains(where: { matches($0, attributes) }) { return errSecDuplicateItem }
            if attributes[kSecAttrAccessible as String] == nil, attributes[kSecAttrAccessControl as String] == nil {
                attributes[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked as String
            }
            stored.append(Item(attributes: attributes, data: data))
            return errSecSuccess
        }
    }

    func update(_ query: CFDictionary, _ changes: CFDictionary) -> OSStatus {
        let query = dictionary(query)
        var changes = dictionary(changes)
        let data = changes.removeValue(forKey: kSecValueData as String) as? Data
        return lock.withLock {
            if let failing { return failing }
            guard let index = stored.firstIndex(where: { matches($0, query) }) else { return errSecItemNotFound }
            // An item behind an access control is not changed without the user (-25293 in practice).
            if stored[index].accessControl != nil { return errSecAuthFailed }
            if let data { stored[index].data = data }
            stored[index].attributes.merge(changes) { _, new in new }
            return errSecSuccess
        }
    }

    func delete(_ query: CFDictionary) -> OSStatus {
        let query = dictionary(query)
        return lock.withLock {
            if let failing { return failing }
            let before = stored.count
            stored.removeAll { matches($0, query) }
            return stored.count == before ? errSecItemNotFound : errSecSuccess
        }
    }
}

/// Test control: how the stand-in keychain reads a prompt's reason from the context it is given
/// (the LocalAuthentication stand-in's `LAContext` conforms).
public protocol PromptReason: AnyObject {
    var promptReason: String? { get }
}
