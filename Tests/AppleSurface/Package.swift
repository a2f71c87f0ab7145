// swift-tools-version:6.1
import PackageDescription

// The SDK's Apple-only code, type-checked on Linux (issue #36). `Latchkey` is the SDK's own
// sources (`Sources/Latchkey` and `Sources/LatchkeyAPI` link to the root package's) built against
// test-only stand-ins of the Apple frameworks it imports (AuthenticationServices, Security's
// keychain calls, LocalAuthentication, CryptoKit's SecureEnclave), so every `canImport` of them
// holds and every file behind it compiles under Swift 6 strict concurrency. The stand-ins are
// declared from Apple's headers (each declaration cites its header) and built in Swift 5 mode, as
// Swift treats a Clang module: closures handed to them get Swift 6's dynamic isolation checks.
// Nothing here ships; `scripts/test` runs `swift test --package-path Tests/AppleSurface`.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .unsafeFlags(["-warnings-as-errors"]),
]

let package = Package(
    name: "AppleSurface",
    defaultLocalization: "en",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0")
    ],
    targets: [
        .target(name: "UIKit", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "UIKitControls", dependencies: ["UIKit"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "AuthenticationServices", dependencies: ["UIKit"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "Security", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "SwiftUI", dependencies: ["AuthenticationServices"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "LocalAuthentication", dependencies: ["Security"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "CryptoKit", dependencies: ["Security", "LocalAuthentication", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        // The root package's own LatchkeyAPI sources (linked), which the SDK builds on.
        .target(name: "LatchkeyAPI", swiftSettings: strict),
        .target(
            name: "Latchkey",
            dependencies: [
                "AuthenticationServices", "Security", "LocalAuthentication", "CryptoKit", "SwiftUI", "UIKit", "LatchkeyAPI",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The SDK's SwiftUI sign-in screen (a link to the root's LatchkeyUI), its views compiled here.
        .target(
            name: "LatchkeyUI", dependencies: ["Latchkey", "SwiftUI", "AuthenticationServices", "UIKit"],
            resources: [.process("Resources")],
            swiftSettings: strict),
        // The SDK's test doubles (a link to the root's), for the view models' tests.
        .target(name: "LatchkeyTesting", dependencies: ["Latchkey"], swiftSettings: strict),
        // Examples/LatchkeyDemo: the app (links to its sources) and, for the tests, its view models alone.
        .executableTarget(name: "LatchkeyDemo", dependencies: ["Latchkey", "LatchkeyUI", "SwiftUI"], swiftSettings: strict),
        .target(name: "LatchkeyDemoModels", dependencies: ["Latchkey"], swiftSettings: strict),
        // The README's SwiftUI screen, as printed there (ReadmeSampleTests compares the two).
        .executableTarget(name: "ReadmeSample", dependencies: ["Latchkey", "SwiftUI"], swiftSettings: strict),
        .testTarget(
            name: "AppleSurfaceTests",
            dependencies: [
                "Latchkey", "AuthenticationServices", "Security", "LocalAuthentication", "CryptoKit", "SwiftUI", "UIKitControls",
                "LatchkeyTesting", "LatchkeyUI",
                "LatchkeyDemoModels",
            ],
            swiftSettings: strict),
    ]
)
