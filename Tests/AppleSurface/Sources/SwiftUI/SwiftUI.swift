// A test-only stand-in for the part of SwiftUI the SDK's SwiftUI calls, the README's screen and
// the example app use, and for AuthenticationServices' SwiftUI overlay
// (`_AuthenticationServices_SwiftUI`, which Apple's toolchain cross-imports when a file imports both
// SwiftUI and AuthenticationServices; here it lives in this module, so a file needs both imports, as
// on Apple platforms). Declarations as the iOS 18.0 interfaces declare them (xybp888/iOS-SDKs:
// iPhoneOS18.0.sdk/System/Cryptexes/OS/System/Library/Frameworks/_AuthenticationServices_SwiftUI.framework
// and SwiftUI/SwiftUICore .swiftinterface): `View` and `Scene` are `@MainActor @preconcurrency`
// protocols; `WebAuthenticationSession` and `AuthorizationController` `@MainActor` structs made
// Sendable; `ASAuthorizationResult` a Sendable, non-frozen enum. Views here draw nothing: the point
// is that code using them type-checks as it would against SwiftUI. Built in Swift 5 mode, as the SDK
// interfaces are. What is not Apple's API is under "Test controls" at the end.
import AuthenticationServices
// SwiftUI re-exports Foundation (`import SwiftUI` alone gives `URL`, `Date`, …).
@_exported import Foundation

// MARK: SwiftUICore: View, ViewBuilder and the views used

@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError("Never has no body") }
}

/// Views built into the framework have no body of their own.
public protocol _PrimitiveView: View where Body == Never {}
extension _PrimitiveView {
    public var body: Never { fatalError("a primitive view has no body") }
}

@resultBuilder
public struct ViewBuilder {
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { _ConditionalContent(storage: .trueContent(first)) }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { _ConditionalContent(storage: .falseContent(second)) }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

public struct EmptyView: _PrimitiveView { public init() {} }
public struct TupleView<T>: _PrimitiveView {
    public var value: T
    public init(_ value: T) { self.value = value }
}
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: _PrimitiveView {
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
}
public struct AnyView: _PrimitiveView {
    public init<V: View>(_ view: V) {}
}

public struct Text: _PrimitiveView, Equatable, Sendable {
    let content: String
    public init(_ content: some StringProtocol) { self.content = String(content) }
    public init(verbatim content: String) { self.content = content }
}

public struct Button<Label: View>: _PrimitiveView {
    let action: @MainActor () -> Void
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {
        self.action = action
        _ = label()
    }
}
extension Button where Label == Text {
    public init(_ title: some StringProtocol, action: @escaping @MainActor () -> Void) {
        self.action = action
    }
}

public struct TextField<Label: View>: _PrimitiveView {}
extension TextField where Label == Text {
    public init(_ title: some StringProtocol, text: Binding<String>) {}
}

public struct SecureField<Label: View>: _PrimitiveView {}
extension SecureField where Label == Text {
    public init(_ title: some StringProtocol, text: Binding<String>) {}
}

public struct ProgressView<Label: View>: _PrimitiveView {}
extension ProgressView where Label == EmptyView {
    public init() {}
}

public struct VStack<Content: View>: _PrimitiveView {
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        _ = content()
    }
}

public struct Form<Content: View>: _PrimitiveView {
    public init(@ViewBuilder content: () -> Content) { _ = content() }
}

public struct Section<Content: View>: _PrimitiveView {
    public init(@ViewBuilder content: () -> Content) { _ = content() }
}

public struct Group<Content> {
    let content: Content
}
extension Group: View, _PrimitiveView where Content: View {
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
}

public struct HorizontalAlignment: Sendable, Equatable {
    let id: Int
    public static let leading = HorizontalAlignment(id: 0)
    public static let center = HorizontalAlignment(id: 1)
    public static let trailing = HorizontalAlignment(id: 2)
}

public struct ModifiedContent<Content: View, Modifier>: _PrimitiveView {
    let content: Content
}

extension View {
    /// `nonisolated public func onOpenURL(perform action: @escaping (Foundation.URL) -> ()) -> some View` (on View, not Scene).
    nonisolated public func onOpenURL(perform action: @escaping (URL) -> Void) -> some View {
        ModifiedContent<Self, URL>(content: self)
    }

    /// `nonisolated public func task(priority: TaskPriority = .userInitiated,`
    /// `_ action: @escaping @isolated(any) @Sendable () async -> Void) -> some View` (attributes unconfirmed for 18.0)
    nonisolated public func task(priority: TaskPriority = .userInitiated, _ action: @escaping @Sendable () async -> Void)
        -> some View
    { ModifiedContent<Self, TaskPriority>(content: self) }

    /// `nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View`
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { ModifiedContent<Self, Int8>(content: self) }

    nonisolated public func disabled(_ disabled: Bool) -> some View { ModifiedContent<Self, Bool>(content: self) }
    nonisolated public func padding() -> some View { ModifiedContent<Self, Void>(content: self) }
    nonisolated public func foregroundStyle(_ color: Color) -> some View { ModifiedContent<Self, Color>(content: self) }
}

public struct Color: Sendable, Equatable {
    let name: String
    public static let red = Color(name: "red")
    public static let secondary = Color(name: "secondary")
    /// `public static var accentColor: Color { get }`
    public static var accentColor: Color { Color(name: "accent") }
    public static let indigo = Color(name: "indigo")
}

/// UIKit's `UITextContentType` (a `String` raw-value struct), as SwiftUI views take it.
public struct UITextContentType: RawRepresentable, Sendable, Equatable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let emailAddress = UITextContentType(rawValue: "emailAddress")
    public static let oneTimeCode = UITextContentType(rawValue: "oneTimeCode")
    public static let telephoneNumber = UITextContentType(rawValue: "telephoneNumber")
}

// MARK: State, Binding, Environment (`@frozen @propertyWrapper public struct`, Sendable where Value: Sendable)

@propertyWrapper
public struct State<Value> {
    final class Box {
        var value: Value
        init(_ value: Value) { self.value = value }
    }
    let box: Box
    public init(wrappedValue value: Value) { box = Box(value) }
    public init(initialValue value: Value) { box = Box(value) }
    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }
    public var projectedValue: Binding<Value> {
        let box = box
        return Binding(get: { box.value }, set: { box.value = $0 })
    }
}
extension State: @unchecked Sendable where Value: Sendable {}
extension State where Value: ExpressibleByNilLiteral {
    public init() { self.init(wrappedValue: nil) }
}

@propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    let get: () -> Value
    let set: (Value) -> Void
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        self.get = get
        self.set = set
    }
    public var wrappedValue: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        Binding<Subject>(get: { self.wrappedValue[keyPath: keyPath] }, set: { self.wrappedValue[keyPath: keyPath] = $0 })
    }
}

public struct EnvironmentValues {
    public init() {}
}

@propertyWrapper
public struct Environment<Value> {
    let keyPath: KeyPath<EnvironmentValues, Value>
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { self.keyPath = keyPath }
    public var wrappedValue: Value { EnvironmentValues()[keyPath: keyPath] }
}
extension Environment: @unchecked Sendable where Value: Sendable {}

// MARK: App and Scene

@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

@MainActor @preconcurrency
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension App {
    /// `@MainActor @preconcurrency public static func main()`: here it makes the app and reads its scene once.
    @MainActor @preconcurrency public static func main() { _ = Self().body }
}

extension Never: Scene {}

@resultBuilder
public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

public struct WindowGroup<Content: View>: Scene {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init(@ViewBuilder content: () -> Content) { _ = content }
}

// MARK: _AuthenticationServices_SwiftUI

/// `@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *) @MainActor public struct WebAuthenticationSession`
/// (Sendable by an extension; no public initializer: SwiftUI's environment gives one).
@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
@MainActor
public struct WebAuthenticationSession {
    nonisolated init() {}

    /// `public struct BrowserSession : Swift.Sendable` with `static var ephemeral` and `static var shared`.
    public struct BrowserSession: Sendable, Equatable {
        let ephemeral: Bool
        public static var ephemeral: BrowserSession { BrowserSession(ephemeral: true) }
        public static var shared: BrowserSession { BrowserSession(ephemeral: false) }
    }

    /// Marked "to be deprecated" (deprecated: 100000) in favour of the `callback:` form.
    public func authenticate(using url: URL, callbackURLScheme: String, preferredBrowserSession: BrowserSession? = nil) async throws
        -> URL
    {
        try await SwiftUIStandIn.webAuthentication(url, .customScheme(callbackURLScheme), preferredBrowserSession)
    }

    @available(iOS 17.4, macOS 14.4, watchOS 10.4, tvOS 17.4, visionOS 1.1, *)
    public func authenticate(
        using url: URL, callback: ASWebAuthenticationSession.Callback, preferredBrowserSession: BrowserSession? = nil,
        additionalHeaderFields: [String: String]
    ) async throws -> URL {
        try await SwiftUIStandIn.webAuthentication(url, callback, preferredBrowserSession)
    }
}
@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
extension WebAuthenticationSession: Sendable {}

/// `@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *) @MainActor public struct AuthorizationController`
/// (Sendable by an extension; the `customMethods:` forms are tvOS-only and left out).
@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
@MainActor
public struct AuthorizationController {
    nonisolated init() {}

    public func performRequests(_ requests: [ASAuthorizationRequest]) async throws -> ASAuthorizationResult {
        try await SwiftUIStandIn.authorization(requests, [])
    }

    public func performRequests(_ requests: [ASAuthorizationRequest], options: ASAuthorizationController.RequestOptions) async throws
        -> ASAuthorizationResult
    { try await SwiftUIStandIn.authorization(requests, options) }

    public func performRequest(_ request: ASAuthorizationRequest) async throws -> ASAuthorizationResult {
        try await SwiftUIStandIn.authorization([request], [])
    }

    public func performRequest(_ request: ASAuthorizationRequest, options: ASAuthorizationController.RequestOptions) async throws
        -> ASAuthorizationResult
    { try await SwiftUIStandIn.authorization([request], options) }
}
@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
extension AuthorizationController: Sendable {}

/// `@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *) public enum ASAuthorizationResult : Swift.Sendable`
/// (not frozen: switches over it need a `default`). `securityKey…` and `customMethod` are left
/// out: the stand-in has no such credentials.
@available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
public enum ASAuthorizationResult: Sendable {
    case password(ASPasswordCredential)
    case appleID(ASAuthorizationAppleIDCredential)
    case passkeyAssertion(ASAuthorizationPlatformPublicKeyCredentialAssertion)
    case passkeyRegistration(ASAuthorizationPlatformPublicKeyCredentialRegistration)
}

extension EnvironmentValues {
    @available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
    public var webAuthenticationSession: WebAuthenticationSession { WebAuthenticationSession() }
    @available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
    public var authorizationController: AuthorizationController { AuthorizationController() }
}

// MARK: Test controls (not Apple's API)

public enum SwiftUIStandIn {
    /// What `WebAuthenticationSession.authenticate` does: given the URL, the callback and the
    /// browser session asked for, the URL the browser came back with. By default the user cancels.
    public nonisolated(unsafe) static var webAuthentication:
        @MainActor (URL, ASWebAuthenticationSession.Callback, WebAuthenticationSession.BrowserSession?) async throws -> URL = { _, _, _ in
            throw ASWebAuthenticationSessionError(.canceledLogin)
        }
    /// What `AuthorizationController.performRequests` does. By default the user cancels.
    public nonisolated(unsafe) static var authorization:
        @MainActor ([ASAuthorizationRequest], ASAuthorizationController.RequestOptions) async throws -> ASAuthorizationResult = {
            _, _ in throw ASAuthorizationError(.canceled)
        }
}
