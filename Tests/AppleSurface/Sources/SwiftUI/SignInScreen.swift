// The part of SwiftUI that LatchkeyUI's sign-in screen uses (issue #37), as the iOS 18.0
// SwiftUI and SwiftUICore .swiftinterface files declare it (xybp888/iOS-SDKs), with the
// availability and isolation given there: view modifiers are `nonisolated` members of `View`;
// `Bindable` and `ScaledMetric` property wrappers; `TimelineView` with a periodic schedule. As in
// SwiftUI.swift, nothing draws: code that uses these type-checks as it would against SwiftUI.
import Observation

// MARK: Views

/// `@frozen public struct Image : Swift.Equatable, Sendable` (a View).
public struct Image: _PrimitiveView, Equatable, Sendable {
    let name: String
    /// `public init(_ name: Swift.String, bundle: Foundation.Bundle? = nil)`
    public init(_ name: String, bundle: Bundle? = nil) { self.name = name }
    /// `public init(systemName: Swift.String)`
    public init(systemName: String) { name = systemName }
    /// `public enum ResizingMode : Swift.Sendable { case tile, stretch }`
    public enum ResizingMode: Sendable { case tile, stretch }
    /// `public func resizable(capInsets: EdgeInsets = EdgeInsets(), resizingMode: Image.ResizingMode = .stretch) -> Image`
    public func resizable(resizingMode: ResizingMode = .stretch) -> Image { self }
}

/// `public struct Label<Title, Icon> : View where Title : View, Icon : View`
public struct Label<Title: View, Icon: View>: _PrimitiveView {}
extension Label where Title == Text, Icon == Image {
    /// `public init<S>(_ title: S, systemImage name: String) where S : StringProtocol`
    public init(_ title: some StringProtocol, systemImage name: String) {}
}

/// `public struct TimelineView<Schedule, Content> where Schedule : TimelineSchedule` (a View when
/// `Content : View`); its content gets a context whose `date` is the moment drawn.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public struct TimelineView<Schedule: TimelineSchedule, Content: View>: _PrimitiveView {
    /// `public struct Context { public let date: Date; … }`
    public struct Context {
        public let date: Date
    }
    /// `public init(_ schedule: Schedule, @ViewBuilder content: @escaping (TimelineViewDefaultContext) -> Content)`
    public init(_ schedule: Schedule, @ViewBuilder content: @escaping (TimelineViewDefaultContext) -> Content) {
        _ = content(TimelineViewDefaultContext(date: Date()))
    }
}

/// `public typealias TimelineViewDefaultContext = TimelineView<EveryMinuteTimelineSchedule, Never>.Context`
public typealias TimelineViewDefaultContext = TimelineView<EveryMinuteTimelineSchedule, Never>.Context

/// `public struct EveryMinuteTimelineSchedule : TimelineSchedule, Sendable`
public struct EveryMinuteTimelineSchedule: TimelineSchedule, Sendable {
    public init() {}
}

/// `public protocol TimelineSchedule`
public protocol TimelineSchedule {}
/// `public struct PeriodicTimelineSchedule : TimelineSchedule, Sendable`
public struct PeriodicTimelineSchedule: TimelineSchedule, Sendable {
    /// `public init(from startDate: Date, by interval: TimeInterval)`
    public init(from startDate: Date, by interval: TimeInterval) {}
}
extension TimelineSchedule where Self == PeriodicTimelineSchedule {
    /// `public static func periodic(from startDate: Date, by interval: TimeInterval) -> PeriodicTimelineSchedule`
    public static func periodic(from startDate: Date, by interval: TimeInterval) -> PeriodicTimelineSchedule {
        PeriodicTimelineSchedule(from: startDate, by: interval)
    }
}

// MARK: Values the modifiers take

/// `@frozen public struct Font : Swift.Hashable, Sendable`
public struct Font: Hashable, Sendable {
    let name: String
    /// `public enum TextStyle : Swift.CaseIterable, Sendable`
    public enum TextStyle: CaseIterable, Sendable {
        case largeTitle, title, title2, title3, headline, subheadline, body, callout, footnote, caption, caption2
    }
    public static let largeTitle = Font(name: "largeTitle")
    public static let title = Font(name: "title")
    public static let headline = Font(name: "headline")
    public static let body = Font(name: "body")
    public static let callout = Font(name: "callout")
    public static let footnote = Font(name: "footnote")
    /// `public func bold() -> Font`
    public func bold() -> Font { Font(name: name + ".bold") }
}

/// `@frozen public enum TextAlignment : Swift.Hashable, Swift.CaseIterable, Sendable`
public enum TextAlignment: Hashable, CaseIterable, Sendable { case leading, center, trailing }

/// `@frozen public struct Alignment : Swift.Equatable, Sendable`
public struct Alignment: Equatable, Sendable {
    let id: Int
    public static let center = Alignment(id: 0)
}

/// `public struct AccessibilityTraits : Swift.SetAlgebra, Sendable`, as far as it is used.
public struct AccessibilityTraits: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let isHeader = AccessibilityTraits(rawValue: 1 << 0)
    public static let isButton = AccessibilityTraits(rawValue: 1 << 1)
}

/// `public protocol PrimitiveButtonStyle`
@MainActor @preconcurrency
public protocol PrimitiveButtonStyle {}
/// `public struct BorderedProminentButtonStyle : PrimitiveButtonStyle` (iOS 15)
public struct BorderedProminentButtonStyle: PrimitiveButtonStyle { nonisolated public init() {} }
/// `public struct BorderedButtonStyle : PrimitiveButtonStyle` (iOS 15)
public struct BorderedButtonStyle: PrimitiveButtonStyle { nonisolated public init() {} }
extension PrimitiveButtonStyle where Self == BorderedProminentButtonStyle {
    /// `@_alwaysEmitIntoClient @MainActor @preconcurrency public static var borderedProminent: BorderedProminentButtonStyle { get }`
    @MainActor @preconcurrency public static var borderedProminent: BorderedProminentButtonStyle { BorderedProminentButtonStyle() }
}
extension PrimitiveButtonStyle where Self == BorderedButtonStyle {
    @MainActor @preconcurrency public static var bordered: BorderedButtonStyle { BorderedButtonStyle() }
}

/// `public struct SubmitTriggers : Swift.OptionSet, Sendable` with `static let text`.
public struct SubmitTriggers: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let text = SubmitTriggers(rawValue: 1)
}

/// `public struct TextInputAutocapitalization : Sendable` (iOS 15; not on macOS).
public struct TextInputAutocapitalization: Sendable {
    let id: Int
    public static var never: TextInputAutocapitalization { TextInputAutocapitalization(id: 0) }
    public static var words: TextInputAutocapitalization { TextInputAutocapitalization(id: 1) }
}

/// UIKit's `@objc public enum UIKeyboardType : Int`, as SwiftUI's `keyboardType(_:)` takes it.
public enum UIKeyboardType: Int, Sendable {
    case `default` = 0, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad, emailAddress, decimalPad
}

// MARK: Modifiers (`nonisolated public func … -> some View` on `View`)

extension View {
    /// `public func font(_ font: Font?) -> some View`
    nonisolated public func font(_ font: Font?) -> some View { ModifiedContent<Self, Font?>(content: self) }
    /// `public func multilineTextAlignment(_ alignment: TextAlignment) -> some View`
    nonisolated public func multilineTextAlignment(_ alignment: TextAlignment) -> some View {
        ModifiedContent<Self, TextAlignment>(content: self)
    }
    /// `public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View`
    nonisolated public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View {
        ModifiedContent<Self, Alignment>(content: self)
    }
    /// `public func frame(minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: …,
    /// alignment: Alignment = .center) -> some View`
    nonisolated public func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> some View { ModifiedContent<Self, (Alignment, Int)>(content: self) }
    /// `public func scaledToFit() -> some View`
    nonisolated public func scaledToFit() -> some View { ModifiedContent<Self, Int16>(content: self) }
    /// `public func tint(_ tint: Color?) -> some View` (iOS 15)
    nonisolated public func tint(_ tint: Color?) -> some View { ModifiedContent<Self, Color?>(content: self) }
    /// `public func buttonStyle<S>(_ style: S) -> some View where S : PrimitiveButtonStyle`
    nonisolated public func buttonStyle<S: PrimitiveButtonStyle>(_ style: S) -> some View { ModifiedContent<Self, S>(content: self) }
    /// `public func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View`
    nonisolated public func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View {
        ModifiedContent<Self, SubmitTriggers>(content: self)
    }
    /// `public func accessibilityLabel(_ label: Text) -> ModifiedContent<Self, AccessibilityAttachmentModifier>`
    nonisolated public func accessibilityLabel(_ label: Text) -> some View { ModifiedContent<Self, Text>(content: self) }
    /// `public func accessibilityHidden(_ hidden: Bool) -> ModifiedContent<Self, AccessibilityAttachmentModifier>`
    nonisolated public func accessibilityHidden(_ hidden: Bool) -> some View { ModifiedContent<Self, Int32>(content: self) }
    /// `public func accessibilityAddTraits(_ traits: AccessibilityTraits) -> ModifiedContent<Self, AccessibilityAttachmentModifier>`
    nonisolated public func accessibilityAddTraits(_ traits: AccessibilityTraits) -> some View {
        ModifiedContent<Self, AccessibilityTraits>(content: self)
    }
    /// `public func textContentType(_ textContentType: UITextContentType?) -> some View` (iOS, tvOS, visionOS)
    nonisolated public func textContentType(_ textContentType: UITextContentType?) -> some View {
        ModifiedContent<Self, UITextContentType?>(content: self)
    }
    /// `public func keyboardType(_ type: UIKeyboardType) -> some View` (iOS, tvOS, visionOS)
    nonisolated public func keyboardType(_ type: UIKeyboardType) -> some View { ModifiedContent<Self, UIKeyboardType>(content: self) }
    /// `public func textInputAutocapitalization(_ autocapitalization: TextInputAutocapitalization?) -> some View` (iOS 15)
    nonisolated public func textInputAutocapitalization(_ autocapitalization: TextInputAutocapitalization?) -> some View {
        ModifiedContent<Self, TextInputAutocapitalization?>(content: self)
    }
    /// `public func autocorrectionDisabled(_ disable: Bool = true) -> some View`
    nonisolated public func autocorrectionDisabled(_ disable: Bool = true) -> some View { ModifiedContent<Self, Int64>(content: self) }
}

// MARK: Property wrappers

/// `@propertyWrapper @dynamicMemberLookup public struct Bindable<Value>` (iOS 17): bindings to an
/// `@Observable` object's properties.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@propertyWrapper @dynamicMemberLookup
public struct Bindable<Value> {
    public var wrappedValue: Value
    /// `public init(wrappedValue: Value) where Value : AnyObject, Value : Observation.Observable`
    public init(wrappedValue: Value) where Value: AnyObject, Value: Observable { self.wrappedValue = wrappedValue }
    public var projectedValue: Bindable<Value> { self }
    /// `public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject>`
    public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject> {
        let object = wrappedValue
        return Binding(get: { object[keyPath: keyPath] }, set: { object[keyPath: keyPath] = $0 })
    }
}

/// `@propertyWrapper public struct ScaledMetric<Value> : DynamicProperty where Value : BinaryFloatingPoint`:
/// a length that grows with Dynamic Type.
@propertyWrapper
public struct ScaledMetric<Value: BinaryFloatingPoint> {
    let base: Value
    /// `public init(wrappedValue: Value, relativeTo textStyle: Font.TextStyle)`
    public init(wrappedValue: Value, relativeTo textStyle: Font.TextStyle) { base = wrappedValue }
    /// `public init(wrappedValue: Value)`
    public init(wrappedValue: Value) { base = wrappedValue }
    public var wrappedValue: Value { base }
}
