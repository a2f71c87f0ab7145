// swift-tools-version:6.1
import PackageDescription

/// `LATCHKEY_STRICT=1` (scripts/test, so CI) makes every warning of this package's own targets an
/// error. An app that depends on the SDK never sets it: SwiftPM refuses unsafe flags in a
/// dependency, and a new compiler's new warning must not break an app's build.
let strict: [SwiftSetting] = Context.environment["LATCHKEY_STRICT"] == "1" ? [.unsafeFlags(["-warnings-as-errors"])] : []

let swiftSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + strict

let package = Package(
    name: "Latchkey",
    defaultLocalization: "en",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .macCatalyst(.v16), .visionOS(.v1)],
    products: [
        .library(name: "LatchkeyAPI", targets: ["LatchkeyAPI"]),
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .library(name: "LatchkeyTesting", targets: ["LatchkeyTesting"]),
        .library(name: "LatchkeyUI", targets: ["LatchkeyUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0")
    ],
    targets: [
        .target(name: "LatchkeyAPI", swiftSettings: swiftSettings),
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyAPI", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "LatchkeyTesting", dependencies: ["Latchkey"], swiftSettings: swiftSettings),
        // The native sign-in screen (issue #37): its model in plain Swift, its SwiftUI views where SwiftUI is.
        .target(name: "LatchkeyUI", dependencies: ["Latchkey"], resources: [.process("Resources")], swiftSettings: swiftSettings),
        .testTarget(name: "LatchkeyAPITests", dependencies: ["LatchkeyAPI"], swiftSettings: swiftSettings),
        .testTarget(name: "LatchkeyTests", dependencies: ["Latchkey", "LatchkeyTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "LatchkeyUITests", dependencies: ["LatchkeyUI", "LatchkeyTesting"], swiftSettings: swiftSettings),
    ]
)
