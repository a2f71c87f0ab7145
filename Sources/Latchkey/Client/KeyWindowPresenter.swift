#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices
    import Foundation
    #if canImport(UIKit)
        import UIKit
    #elseif canImport(AppKit)
        import AppKit
    #endif

    /// Where Apple's sheets show when the app names no presentation context: the key window of
    /// the foreground scene (iOS, iPadOS, visionOS, Mac Catalyst) or the app's key window
    /// (macOS), as Auth0.swift and supabase-swift find it. The sessions hold it weakly, so the
    /// SDK's flows keep it until they end.
    @MainActor
    final class KeyWindowPresenter: NSObject, ASWebAuthenticationPresentationContextProviding,
        ASAuthorizationControllerPresentationContextProviding
    {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { Self.anchor() }

        func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { Self.anchor() }

        /// The key window of an active scene, else of any scene, else a new window (which
        /// AuthenticationServices accepts, and centres its sheet on the screen).
        static func anchor() -> ASPresentationAnchor {
            #if canImport(UIKit)
                let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
                let ordered = scenes.filter { $0.activationState == .foregroundActive } + scenes
                for scene in ordered {
                    if let window = scene.keyWindow ?? scene.windows.first(where: \.isKeyWindow) ?? scene.windows.first {
                        return window
                    }
                }
                return ASPresentationAnchor()
            #elseif canImport(AppKit)
                return NSApplication.shared.keyWindow ?? NSApplication.shared.mainWindow ?? ASPresentationAnchor()
            #else
                return ASPresentationAnchor()
            #endif
        }
    }
#endif
