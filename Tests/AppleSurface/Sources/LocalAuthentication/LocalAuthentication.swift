// A test-only stand-in for Apple's LocalAuthentication, for type-checking the SDK's Apple-only code
// on Linux. Declarations as Swift imports them from LAContext.h, LAError.h and LAPublicDefines.h
// (iPhoneOS 16.5: theos/sdks; 18.0/18.1: xiangfeidexiaohuo/iOS-SDKs, xybp888/iOS-SDKs). `LAContext`
// is `API_UNAVAILABLE(tvos)` and carries no NS_SWIFT_SENDABLE: a non-Sendable class. Built in Swift 5
// mode, as Swift treats a Clang module. What is not Apple's API is under "Test controls" at the end.
import Foundation
import Security

// MARK: LAPublicDefines.h

/// `typedef NS_ENUM(NSInteger, LAPolicy)`
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
}

/// `extern NSString *const LAErrorDomain`
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

// MARK: LAError.h (`typedef NS_ERROR_ENUM(LAErrorDomain, LAError)`, imported as a bridged error struct)

public struct LAError: CustomNSError, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case authenticationFailed = -1, userCancel = -2, userFallback = -3, systemCancel = -4, passcodeNotSet = -5
        case biometryNotAvailable = -6, biometryNotEnrolled = -7, biometryLockout = -8, appCancel = -9
        case invalidContext = -10, companionNotAvailable = -11, notInteractive = -1004
    }
    public let code: Code
    public init(_ code: Code) { self.code = code }
    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public static var userCancel: Code { .userCancel }
    public static var appCancel: Code { .appCancel }
    public static var systemCancel: Code { .systemCancel }
    public static var userFallback: Code { .userFallback }
    public static var invalidContext: Code { .invalidContext }
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    public static var biometryLockout: Code { .biometryLockout }
}

// MARK: LAContext.h

/// `extern const NSTimeInterval LATouchIDAuthenticationMaximumAllowableReuseDuration`
/// (API_AVAILABLE(macos(10.12), ios(9.0)) API_UNAVAILABLE(watchos, tvos)).
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// `typedef NS_ENUM(NSInteger, LABiometryType)` (LABiometryType.h in the 18 SDK).
public enum LABiometryType: Int, Sendable {
    case none = 0, touchID = 1, faceID = 2, opticID = 4
}

/// `API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0)) API_UNAVAILABLE(tvos) @interface LAContext : NSObject`
open class LAContext: NSObject {
    public override init() { super.init() }

    /// API_AVAILABLE(macos(10.13), ios(11.0)) API_UNAVAILABLE(watchos, tvos)
    open var localizedReason: String = ""
    /// API_AVAILABLE(macos(10.12), ios(9.0)) API_UNAVAILABLE(watchos, tvos)
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    /// API_AVAILABLE(macos(10.13.2), ios(11.0))
    open var biometryType: LABiometryType { LAStandIn.biometry }

    /// `- (BOOL)canEvaluatePolicy:(LAPolicy)policy error:(NSError * __autoreleasing *)error NS_SWIFT_NOTHROW`
    /// (`NSErrorPointer`, an `AutoreleasingUnsafeMutablePointer`, which Linux lacks: the plain pointer here).
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        LAStandIn.biometry != .none || policy == .deviceOwnerAuthentication
    }

    /// `- (void)evaluatePolicy:(LAPolicy)policy localizedReason:(NSString *)localizedReason
    /// reply:(void(^)(BOOL success, NSError * __nullable error))reply` (a plain block, not Sendable).
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping (Bool, (any Error)?) -> Void) {
        let answer = LAStandIn.answer
        DispatchQueue.global().async { answer == nil ? reply(true, nil) : reply(false, answer.map(LAError.init)) }
    }

    /// The `NS_SWIFT_ASYNC_THROWS_ON_FALSE(0)` form of the above.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        if let answer = LAStandIn.answer { throw LAError(answer) }
        return true
    }

    /// `- (void)invalidate`
    open func invalidate() {}
}

// MARK: Test controls (not Apple's API)

extension LAContext: PromptReason {
    public var promptReason: String? { localizedReason.isEmpty ? nil : localizedReason }
}

/// What the device has and what its user answers.
public enum LAStandIn {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var state: (biometry: LABiometryType, answer: LAError.Code?) = (.faceID, nil)

    public static var biometry: LABiometryType {
        get { lock.withLock { state.biometry } }
        set { lock.withLock { state.biometry = newValue } }
    }

    /// `nil`: the user passes; otherwise the error every evaluation ends with.
    public static var answer: LAError.Code? {
        get { lock.withLock { state.answer } }
        set { lock.withLock { state.answer = newValue } }
    }
}
