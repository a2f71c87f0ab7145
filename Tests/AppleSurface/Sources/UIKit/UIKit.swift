// A test-only stand-in for the part of UIKit the SDK uses to find the key window, declared as the
// iOS 18 SDK's UIKit headers declare it (UIApplication.h, UIScene.h, UIWindowScene.h, UIWindow.h:
// every class `NS_SWIFT_UI_ACTOR`, so main-actor and not Sendable). Built in Swift 5 mode, as Swift
// treats a Clang module. What is not Apple's API is under "Test controls" at the end.
import Foundation

@MainActor
open class UIResponder: NSObject {
    public override nonisolated init() { super.init() }
}

@MainActor
open class UIView: UIResponder {}

/// `UIWindow.h`: `@property(nonatomic,readonly,getter=isKeyWindow) BOOL keyWindow;`
@MainActor
open class UIWindow: UIView {
    /// Test control: which window is key.
    public var standInKey = false
    open var isKeyWindow: Bool { standInKey }
    public override nonisolated init() { super.init() }
}

/// `UIScene.h`: `typedef NS_ENUM(NSInteger, UISceneActivationState)`.
@MainActor
open class UIScene: UIResponder {
    public enum ActivationState: Int, Sendable {
        case unattached = -1, foregroundActive = 0, foregroundInactive = 1, background = 2
    }
    /// Test control: set by the test.
    public var standInState: ActivationState = .foregroundActive
    open var activationState: ActivationState { standInState }
}

/// `UIWindowScene.h`: `windows` and (iOS 15) `keyWindow`.
@MainActor
open class UIWindowScene: UIScene {
    /// Test control.
    public var standInWindows: [UIWindow] = []
    open var windows: [UIWindow] { standInWindows }
    open var keyWindow: UIWindow? { standInWindows.first(where: \.isKeyWindow) }
}

/// `UIApplication.h`: `@property(class, nonatomic, readonly) UIApplication *sharedApplication;`,
/// `@property(nonatomic, readonly) NSSet<UIScene *> *connectedScenes` (iOS 13).
@MainActor
open class UIApplication: UIResponder {
    public static let shared = UIApplication()
    /// Test control: the scenes the app has.
    public var standInScenes: [UIScene] = []
    open var connectedScenes: Set<UIScene> { Set(standInScenes) }
}
