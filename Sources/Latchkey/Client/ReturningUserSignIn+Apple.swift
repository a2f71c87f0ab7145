import Foundation

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices

    extension ReturningUserStep {
        /// A passkey this device holds, over the key window, with
        /// `preferImmediatelyAvailableCredentials`: no sheet when it holds none. A UIKit app that
        /// presents from its own window writes the step itself:
        ///
        /// ```swift
        /// ReturningUserStep(method: .passkey) { auth, _ in
        ///     try await auth.signInWithPasskey(presentationContextProvider: self, preferImmediatelyAvailableCredentials: true)
        /// }
        /// ```
        public static func passkey() -> ReturningUserStep {
            ReturningUserStep(method: .passkey) { auth, _ in
                try await auth.signInWithPasskey(presentationContextProvider: nil, preferImmediatelyAvailableCredentials: true)
            }
        }
    }
#endif

#if canImport(AuthenticationServices) && canImport(SwiftUI) && !os(watchOS) && !os(tvOS)
    import SwiftUI

    @available(iOS 16.4, macOS 13.3, *)
    extension ReturningUserStep {
        /// A passkey this device holds, through SwiftUI's `AuthorizationController`, with no sheet
        /// when it holds none.
        public static func passkey(using controller: AuthorizationController) -> ReturningUserStep {
            ReturningUserStep(method: .passkey) { auth, _ in
                try await auth.signInWithPasskey(using: controller, preferImmediatelyAvailableCredentials: true)
            }
        }

        /// The standard steps with SwiftUI's `AuthorizationController`: a passkey, then the device
        /// key (its prompt showing `reason`).
        public static func standard(using controller: AuthorizationController, reason: String = "Sign in") -> [ReturningUserStep] {
            [.passkey(using: controller), .deviceKey(reason: reason)]
        }
    }
#endif
