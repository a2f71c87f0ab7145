// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .macCatalyst(.v16), .visionOS(.v1)],
    products: [
        .library(name: "LatchkeyAPI", targets: ["LatchkeyAPI"])
    ],
    targets: [
        .target(name: "LatchkeyAPI", swiftSettings: swiftSettings),
        .testTarget(name: "LatchkeyAPITests", dependencies: ["LatchkeyAPI"], swiftSettings: swiftSettings),
    ]
)
