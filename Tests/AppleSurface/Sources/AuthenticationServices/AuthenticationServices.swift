// A test-only stand-in for Apple's AuthenticationServices, for type-checking the SDK's Apple-only
// code on Linux. Every declaration is written as Swift imports the real one from the current SDK,
// isolation and sendability included; the header each comes from is named above it (read from
// public copies of iPhoneOS 16.5–18.0 and MacOSX SDK headers and Swift interfaces). Built in
// Swift 5 mode, as Swift treats a Clang module, so that closures the SDK hands it carry Swift 6's
// dynamic isolation checks. What is not Apple's API is under "Test controls" at the end.
import Dispatch
import Foundation
// ASFoundation.h imports UIKit (AppKit on macOS) and the Clang module exports it. Not exported
// here: Swift Testing declares a cross-import overlay with a module named UIKit, which Linux lacks,
// so a test file must not see one (tests reach the UIKit stand-in through UIKitControls).
import UIKit

// MARK: ASFoundation.h

/// `typedef UIWindow * ASPresentationAnchor` (iOS; `NSWindow *` on macOS): `NS_SWIFT_UI_ACTOR`
/// (UIKit's UIWindow.h), so main-actor and not Sendable.
public typealias ASPresentationAnchor = UIWindow

// MARK: ASAuthorization.h, ASAuthorizationCredential.h, ASAuthorizationProvider.h, ASAuthorizationRequest.h

/// `@protocol ASAuthorizationCredential <NSObject, NSCopying, NSSecureCoding>` inside
/// `NS_HEADER_AUDIT_BEGIN(nullability, sendability)` without `NS_SWIFT_SENDABLE`: not Sendable.
/// (`NSCopying` and `NSSecureCoding` are left out: the SDK neither copies nor archives one.)
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// `@protocol ASAuthorizationProvider <NSObject>`: not Sendable.
public protocol ASAuthorizationProvider: NSObjectProtocol {}

/// `@interface ASAuthorization : NSObject`; the overlay adds `@unchecked Sendable` (iOS 16.4,
/// macOS 13.3: AuthenticationServices.swiftinterface). Its `credential` is an existential of a
/// non-Sendable protocol.
open class ASAuthorization: NSObject, @unchecked Sendable {
    public struct Scope: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `ASAuthorizationScopeFullName`, `ASAuthorizationScopeEmail`.
        public static let fullName = Scope(rawValue: "full_name")
        public static let email = Scope(rawValue: "email")
    }
    open var provider: any ASAuthorizationProvider { standIn.provider }
    open var credential: any ASAuthorizationCredential { standIn.credential }

    let standIn: (provider: any ASAuthorizationProvider, credential: any ASAuthorizationCredential)
    init(provider: any ASAuthorizationProvider, credential: any ASAuthorizationCredential) {
        standIn = (provider, credential)
    }
}

/// `@interface ASAuthorizationRequest : NSObject <NSCopying, NSSecureCoding>`; `@unchecked
/// Sendable` by the overlay.
open class ASAuthorizationRequest: NSObject, @unchecked Sendable {
    open var provider: any ASAuthorizationProvider { standInProvider }
    let standInProvider: any ASAuthorizationProvider
    init(provider: any ASAuthorizationProvider) { standInProvider = provider }
}

// MARK: ASAuthorizationController.h (NS_SWIFT_UI_ACTOR on both protocols in the current SDKs)

@MainActor @preconcurrency
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// `@optional` methods: empty defaults (Linux has no `@objc optional`).
extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

@MainActor @preconcurrency
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// `@interface ASAuthorizationController : NSObject`, audited, not `NS_SWIFT_SENDABLE`, not
/// main-actor: not Sendable. Delegate and presentation context are `weak`. The header: "The
/// instance will remain retained until the flow is either completed or canceled, and the
/// delegate callback is made."
open class ASAuthorizationController: NSObject {
    public struct RequestOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let preferImmediatelyAvailableCredentials = RequestOptions(rawValue: 1 << 0)
    }
    open private(set) var authorizationRequests: [ASAuthorizationRequest]
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?

    public init(authorizationRequests: [ASAuthorizationRequest]) {
        self.authorizationRequests = authorizationRequests
    }

    open func performRequests() { performRequests(options: []) }

    /// Asks the presentation context for its anchor on the main thread, as the sheet appears (the
    /// context is held weakly: one nobody keeps is gone by then, and the flow fails), then does
    /// what the test set.
    open func performRequests(options: ASAuthorizationController.RequestOptions) {
        StandIn.controllers.withLock { $0.append(self) }
        let box = UncheckedBox(self)
        DispatchQueue.main.async {
            let controller = box.value
            let anchor = MainActor.assumeIsolated { controller.presentationContextProvider?.presentationAnchor(for: controller) }
            guard let anchor else { return controller.finish(.failure(ASAuthorizationError(.failed))) }
            StandIn.anchors.withLock { $0.append(anchor) }
            StandIn.authorizationBehaviour(controller, options)
        }
    }

    open func cancel() {
        StandIn.cancelledControllers.withLock { $0 += 1 }
        finish(.failure(ASAuthorizationError(.canceled)))
    }

    /// Delivers an outcome to the delegate on the main thread, once, and lets the controller go.
    public func finish(_ outcome: Result<any ASAuthorizationCredential, any Error>) {
        let finished = StandIn.controllers.withLock { list -> Bool in
            guard let index = list.firstIndex(where: { $0 === self }) else { return false }
            list.remove(at: index)
            return true
        }
        guard finished else { return }
        let box = UncheckedBox((self, outcome))
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                let (controller, outcome) = box.value
                switch outcome {
                case .success(let credential):
                    let provider = controller.authorizationRequests.first?.provider ?? ASAuthorizationAppleIDProvider()
                    controller.delegate?.authorizationController(
                        controller: controller, didCompleteWithAuthorization: ASAuthorization(provider: provider, credential: credential))
                case .failure(let error):
                    controller.delegate?.authorizationController(controller: controller, didCompleteWithError: error)
                }
            }
        }
    }
}

// MARK: ASAuthorizationError.h (NS_ERROR_ENUM)

public struct ASAuthorizationError: CustomNSError, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case unknown = 1000, canceled = 1001, invalidResponse = 1002, notHandled = 1003, failed = 1004, notInteractive = 1005
        case matchedExcludedCredential = 1006
    }
    public let code: Code
    public init(_ code: Code) { self.code = code }
    public static var errorDomain: String { "com.apple.AuthenticationServices.AuthorizationError" }
    public var errorCode: Int { code.rawValue }
    public static var unknown: Code { .unknown }
    public static var canceled: Code { .canceled }
    public static var failed: Code { .failed }
    public static var notInteractive: Code { .notInteractive }
}

// MARK: Sign in with Apple (ASAuthorizationAppleIDProvider.h, ASAuthorizationOpenIDRequest.h,
// ASAuthorizationAppleIDRequest.h, ASAuthorizationAppleIDCredential.h); @unchecked Sendable by the overlay

open class ASAuthorizationAppleIDProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    public override init() { super.init() }
    open func createRequest() -> ASAuthorizationAppleIDRequest { ASAuthorizationAppleIDRequest(provider: self) }
}

open class ASAuthorizationOpenIDRequest: ASAuthorizationRequest, @unchecked Sendable {
    open var requestedScopes: [ASAuthorization.Scope]?
    open var state: String?
    open var nonce: String?
}

open class ASAuthorizationAppleIDRequest: ASAuthorizationOpenIDRequest, @unchecked Sendable {
    open var user: String?
}

open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential, @unchecked Sendable {
    open private(set) var user: String
    open private(set) var identityToken: Data?
    open private(set) var authorizationCode: Data?
    open private(set) var email: String?
    open private(set) var fullName: PersonNameComponents?
    open private(set) var authorizedScopes: [ASAuthorization.Scope] = []

    /// Test control: Apple makes these; the stand-in lets a test make one.
    public init(user: String, identityToken: Data?, authorizationCode: Data?, email: String?, fullName: PersonNameComponents?) {
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.email = email
        self.fullName = fullName
    }
}

// MARK: ASPasswordCredential.h (`@interface ASPasswordCredential : NSObject <ASAuthorizationCredential>`,
// @unchecked Sendable by the overlay)

open class ASPasswordCredential: NSObject, ASAuthorizationCredential, @unchecked Sendable {
    open private(set) var user: String
    open private(set) var password: String
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

// MARK: Platform passkeys (ASAuthorizationPlatformPublicKeyCredential*.h, ASPublicKeyCredential.h,
// ASAuthorizationPublicKeyCredential*.h, ASAuthorizationPublicKeyCredentialConstants.h)

public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let preferred = Self(rawValue: "preferred")
    public static let required = Self(rawValue: "required")
    public static let discouraged = Self(rawValue: "discouraged")
}

public protocol ASPublicKeyCredential: ASAuthorizationCredential {
    var rawClientDataJSON: Data { get }
    var credentialID: Data { get }
}

public protocol ASAuthorizationPublicKeyCredentialRegistration: ASPublicKeyCredential {
    var rawAttestationObject: Data? { get }
}

/// ASAuthorizationPublicKeyCredentialAssertion.h has no nullability audit: `Data!`.
public protocol ASAuthorizationPublicKeyCredentialAssertion: ASPublicKeyCredential {
    var rawAuthenticatorData: Data! { get }
    var userID: Data! { get }
    var signature: Data! { get }
}

open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject, @unchecked Sendable {
    open var credentialID: Data
    public init(credentialID: Data) { self.credentialID = credentialID }
}

open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider, @unchecked Sendable {
    open private(set) var relyingPartyIdentifier: String
    public init(relyingPartyIdentifier: String) { self.relyingPartyIdentifier = relyingPartyIdentifier }
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
    {
        let request = ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest(provider: self)
        request.challenge = challenge
        request.name = name
        request.userID = userID
        return request
    }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        let request = ASAuthorizationPlatformPublicKeyCredentialAssertionRequest(provider: self)
        request.challenge = challenge
        return request
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest, @unchecked Sendable {
    open var challenge = Data()
    open var name = ""
    open var userID = Data()
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
    /// ASAuthorizationWebBrowserPlatformPublicKeyCredentialRegistrationRequest.h: iOS 17.4, macOS 13.5.
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor]?
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest, @unchecked Sendable {
    open var challenge = Data()
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationPublicKeyCredentialRegistration,
    @unchecked Sendable
{
    open private(set) var rawClientDataJSON: Data
    open private(set) var credentialID: Data
    open private(set) var rawAttestationObject: Data?
    /// Test control.
    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data?) {
        self.credentialID = credentialID
        rawClientDataJSON = clientDataJSON
        rawAttestationObject = attestationObject
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationPublicKeyCredentialAssertion, @unchecked Sendable {
    open private(set) var rawClientDataJSON: Data
    open private(set) var credentialID: Data
    open private(set) var rawAuthenticatorData: Data!
    open private(set) var userID: Data!
    open private(set) var signature: Data!
    /// Test control.
    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userID: Data) {
        self.credentialID = credentialID
        rawClientDataJSON = clientDataJSON
        rawAuthenticatorData = authenticatorData
        self.signature = signature
        self.userID = userID
    }
}

// MARK: Security keys (ASAuthorizationSecurityKeyPublicKeyCredential*.h, ASAuthorizationPublicKeyCredentialParameters.h,
// ASCOSEConstants.h, ASAuthorizationPublicKeyCredentialConstants.h; iOS 15, macOS 12; all inside
// NS_HEADER_AUDIT_BEGIN(nullability, sendability), none NS_SWIFT_SENDABLE: the overlay's @unchecked
// Sendable on ASAuthorizationRequest is inherited by the requests, nothing else is Sendable)

/// `typedef NSInteger ASCOSEAlgorithmIdentifier NS_TYPED_EXTENSIBLE_ENUM`.
public struct ASCOSEAlgorithmIdentifier: Hashable, RawRepresentable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    /// `ASCOSEAlgorithmIdentifierES256 = -7`.
    public static let ES256 = ASCOSEAlgorithmIdentifier(rawValue: -7)
}

/// `typedef NSString *ASAuthorizationPublicKeyCredentialResidentKeyPreference NS_TYPED_EXTENSIBLE_ENUM`.
public struct ASAuthorizationPublicKeyCredentialResidentKeyPreference: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let discouraged = Self(rawValue: "discouraged")
    public static let preferred = Self(rawValue: "preferred")
    public static let required = Self(rawValue: "required")
}

/// `typedef NSString *ASAuthorizationPublicKeyCredentialAttestationKind NS_TYPED_EXTENSIBLE_ENUM`.
public struct ASAuthorizationPublicKeyCredentialAttestationKind: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let direct = Self(rawValue: "direct")
    public static let indirect = Self(rawValue: "indirect")
    public static let enterprise = Self(rawValue: "enterprise")
}

/// `@interface ASAuthorizationPublicKeyCredentialParameters : NSObject <NSSecureCoding, NSCopying>`.
open class ASAuthorizationPublicKeyCredentialParameters: NSObject {
    open private(set) var algorithm: ASCOSEAlgorithmIdentifier
    public init(algorithm: ASCOSEAlgorithmIdentifier) { self.algorithm = algorithm }
}

/// `@interface ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor : NSObject
/// <ASAuthorizationPublicKeyCredentialDescriptor>`, with its `Transport` (`NS_TYPED_EXTENSIBLE_ENUM`,
/// `NS_SWIFT_NAME(ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport)`).
open class ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor: NSObject {
    public struct Transport: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let usb = Transport(rawValue: "usb")
        public static let nfc = Transport(rawValue: "nfc")
        public static let bluetooth = Transport(rawValue: "ble")
        /// `ASAuthorizationAllSupportedPublicKeyCredentialDescriptorTransports()`,
        /// `NS_SWIFT_NAME(getter:…Transport.allSupported())`.
        public static var allSupported: [Transport] { [.usb, .nfc, .bluetooth] }
    }
    open var credentialID: Data
    open var transports: [Transport]
    public init(credentialID: Data, transports allowedTransports: [Transport]) {
        self.credentialID = credentialID
        self.transports = allowedTransports
    }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider {
    open private(set) var relyingPartyIdentifier: String
    public init(relyingPartyIdentifier: String) { self.relyingPartyIdentifier = relyingPartyIdentifier }
    open func createCredentialRegistrationRequest(challenge: Data, displayName: String, name: String, userID: Data)
        -> ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest
    {
        let request = ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest(provider: self)
        request.relyingPartyIdentifier = relyingPartyIdentifier
        request.challenge = challenge
        request.displayName = displayName
        request.name = name
        request.userID = userID
        return request
    }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest {
        let request = ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest(provider: self)
        request.relyingPartyIdentifier = relyingPartyIdentifier
        request.challenge = challenge
        return request
    }
}

/// Its `ASAuthorizationPublicKeyCredentialRegistrationRequest` properties are declared here.
open class ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest, @unchecked Sendable {
    open internal(set) var relyingPartyIdentifier = ""
    open var userID = Data()
    open var name = ""
    open var displayName: String?
    open var challenge = Data()
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
    open var attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind.none
    open var credentialParameters: [ASAuthorizationPublicKeyCredentialParameters] = []
    open var excludedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor] = []
    open var residentKeyPreference = ASAuthorizationPublicKeyCredentialResidentKeyPreference.preferred
}

/// Its `ASAuthorizationPublicKeyCredentialAssertionRequest` properties are declared here.
open class ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest: ASAuthorizationRequest, @unchecked Sendable {
    open var challenge = Data()
    open var relyingPartyIdentifier = ""
    open var allowedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor] = []
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialRegistration: NSObject, ASAuthorizationPublicKeyCredentialRegistration {
    open private(set) var rawClientDataJSON: Data
    open private(set) var credentialID: Data
    open private(set) var rawAttestationObject: Data?
    /// Test control.
    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data?) {
        self.credentialID = credentialID
        rawClientDataJSON = clientDataJSON
        rawAttestationObject = attestationObject
    }
}

open class ASAuthorizationSecurityKeyPublicKeyCredentialAssertion: NSObject, ASAuthorizationPublicKeyCredentialAssertion {
    open private(set) var rawClientDataJSON: Data
    open private(set) var credentialID: Data
    open private(set) var rawAuthenticatorData: Data!
    open private(set) var userID: Data!
    open private(set) var signature: Data!
    /// Test control.
    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userID: Data?) {
        self.credentialID = credentialID
        rawClientDataJSON = clientDataJSON
        rawAuthenticatorData = authenticatorData
        self.signature = signature
        self.userID = userID
    }
}

// MARK: ASWebAuthenticationSession.h (not sendability-audited; the completion handler is a plain block)

@MainActor @preconcurrency
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// `@interface ASWebAuthenticationSession : NSObject`: neither Sendable nor main-actor. On macOS
/// the completion handler runs on an XPC reply queue, not the main thread.
open class ASWebAuthenticationSession: NSObject {
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    open var prefersEphemeralWebBrowserSession = false
    open var additionalHeaderFields: [String: String]?
    public let standInURL: URL
    public let standInCallbackScheme: String?
    /// Test control: the callback the session was made with (the scheme's, for the older initializer).
    public let standInCallback: Callback
    let completionHandler: CompletionHandler

    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        standInURL = URL
        standInCallbackScheme = callbackURLScheme
        standInCallback = .customScheme(callbackURLScheme ?? "")
        self.completionHandler = completionHandler
    }

    /// `- (instancetype)initWithURL:(NSURL *)URL callback:(ASWebAuthenticationSessionCallback *)callback
    /// completionHandler:(ASWebAuthenticationSessionCompletionHandler)completionHandler`
    /// API_AVAILABLE(macos(14.4), ios(17.4), watchos(10.4), tvos(17.4), visionos(1.1))
    @available(iOS 17.4, macOS 14.4, watchOS 10.4, tvOS 17.4, visionOS 1.1, *)
    public init(url URL: URL, callback: Callback, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        standInURL = URL
        standInCallbackScheme = nil
        standInCallback = callback
        self.completionHandler = completionHandler
    }

    /// `@interface ASWebAuthenticationSessionCallback : NSObject` (NS_SWIFT_SENDABLE,
    /// API_AVAILABLE(ios(17.4), macos(14.4)), imported as `ASWebAuthenticationSession.Callback`).
    public final class Callback: NSObject, @unchecked Sendable {
        /// Test control: what it matches.
        public let standInScheme: String?
        public let standInHost: String?
        public let standInPath: String?
        init(scheme: String?, host: String?, path: String?) {
            standInScheme = scheme
            standInHost = host
            standInPath = path
        }
        /// `+ (instancetype)callbackWithCustomScheme:(NSString *)customScheme`
        public static func customScheme(_ customScheme: String) -> Callback { Callback(scheme: customScheme, host: nil, path: nil) }
        /// `+ (instancetype)callbackWithHTTPSHost:(NSString *)host path:(NSString *)path`
        public static func https(host: String, path: String) -> Callback { Callback(scheme: "https", host: host, path: path) }
        /// `- (BOOL)matchesURL:(NSURL *)url`
        public func matchesURL(_ url: URL) -> Bool {
            guard url.scheme?.lowercased() == standInScheme?.lowercased() else { return false }
            guard let standInHost else { return true }
            return url.host?.lowercased() == standInHost.lowercased() && url.path == standInPath
        }
    }

    open var canStart: Bool { true }

    /// As the controller: the anchor is asked for on the main thread as the sheet appears.
    @discardableResult
    open func start() -> Bool {
        StandIn.webSessions.withLock { $0.append(self) }
        let box = UncheckedBox(self)
        DispatchQueue.main.async {
            let session = box.value
            let anchor = MainActor.assumeIsolated { session.presentationContextProvider?.presentationAnchor(for: session) }
            guard let anchor else {
                return session.finish(url: nil, error: ASWebAuthenticationSessionError(.presentationContextNotProvided))
            }
            StandIn.anchors.withLock { $0.append(anchor) }
            StandIn.webSessionBehaviour(session)
        }
        return true
    }

    open func cancel() { finish(url: nil, error: ASWebAuthenticationSessionError(.canceledLogin)) }

    /// Calls the completion handler once, from a global queue as AuthenticationServices does on
    /// macOS, and lets the session go.
    public func finish(url: URL?, error: (any Error)?) {
        let finished = StandIn.webSessions.withLock { list -> Bool in
            guard let index = list.firstIndex(where: { $0 === self }) else { return false }
            list.remove(at: index)
            return true
        }
        guard finished else { return }
        let box = UncheckedBox(self)
        let error = error.map { $0 as NSError? ?? nil }
        DispatchQueue.global().async {
            box.value.completionHandler(url, error ?? nil)
        }
    }
}

public struct ASWebAuthenticationSessionError: CustomNSError, Hashable, Sendable {
    public enum Code: Int, Sendable { case canceledLogin = 1, presentationContextNotProvided = 2, presentationContextInvalid = 3 }
    public let code: Code
    public init(_ code: Code) { self.code = code }
    public static var errorDomain: String { "com.apple.AuthenticationServices.WebAuthenticationSession" }
    public var errorCode: Int { code.rawValue }
    public static var canceledLogin: Code { .canceledLogin }
}

// MARK: Test controls (not Apple's API)

/// What the stand-ins do when started, and what is running; tests set and read them.
public enum StandIn {
    /// What `ASWebAuthenticationSession.start()` does; by default the user cancels.
    public nonisolated(unsafe) static var webSessionBehaviour: (ASWebAuthenticationSession) -> Void = {
        $0.finish(url: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
    }
    /// What `ASAuthorizationController.performRequests` does; by default the user cancels.
    public nonisolated(unsafe) static var authorizationBehaviour:
        (ASAuthorizationController, ASAuthorizationController.RequestOptions) -> Void = {
            controller, _ in controller.finish(.failure(ASAuthorizationError(.canceled)))
        }
    /// Sessions and controllers started and not yet finished (what AuthenticationServices retains).
    public static let webSessions = Locked<[ASWebAuthenticationSession]>([])
    public static let controllers = Locked<[ASAuthorizationController]>([])
    public static let cancelledControllers = Locked(0)
    /// The anchors the presentation contexts gave, oldest first.
    public static let anchors = Locked<[ASPresentationAnchor]>([])
}

/// A lock around a value (the stand-in's own state).
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    public init(_ value: Value) { self.value = value }
    @discardableResult
    public func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
