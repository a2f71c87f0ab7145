// Test controls of the UIKit stand-in, for test files: a file that imports Swift Testing must not
// import a module named UIKit (Testing's cross-import overlay with it does not exist on Linux).
import UIKit

/// Windows and scenes for the tests.
@MainActor
public enum StandInWindows {
    /// A window, as an app's would be (the anchor a test's presentation context hands back).
    public static func window(key: Bool = false) -> UIWindow {
        let window = UIWindow()
        window.standInKey = key
        return window
    }

    /// Gives the app these scenes, each with its windows: `(active, windows)`.
    public static func install(_ scenes: [(active: Bool, windows: [UIWindow])]) {
        UIApplication.shared.standInScenes = scenes.map { scene in
            let windowScene = UIWindowScene()
            windowScene.standInState = scene.active ? .foregroundActive : .background
            windowScene.standInWindows = scene.windows
            return windowScene
        }
    }
}
