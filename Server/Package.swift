// swift-tools-version:6.1
import PackageDescription

/// Every warning of the server's own targets is an error, in every build (the server is never a
/// dependency; dependencies' warnings are SwiftPM's to silence).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .unsafeFlags(["-warnings-as-errors"]),
]

let package = Package(
    name: "LatchkeyServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["LatchkeyCLI"])
    ],
    dependencies: [
        .package(name: "Latchkey", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(
            name: "LatchkeyCore",
            dependencies: [
                "LatchkeyWebAuthn",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyJWT",
            dependencies: [
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyProviders",
            dependencies: [
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyWebAuthn",
            dependencies: [
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CSecp256k1",
            path: "Sources/CSecp256k1",
            pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])]
        ),
        .target(
            name: "LatchkeyWallets",
            dependencies: ["LatchkeyCore", "CSecp256k1"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        .target(
            name: "LatchkeyStore",
            dependencies: [
                "LatchkeyCore",
                "CSQLite",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyDelivery",
            dependencies: [
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyCore",
                "LatchkeyJWT",
                "LatchkeyStore",
                "LatchkeyDelivery",
                "LatchkeyProviders",
                "LatchkeyWebAuthn",
                "LatchkeyWallets",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LatchkeyCLI",
            dependencies: [
                "LatchkeyServer",
                "LatchkeyDelivery",
                "LatchkeyStore",
                "LatchkeyCore",
                .product(name: "Latchkey", package: "Latchkey"),
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LatchkeyBench",
            dependencies: [
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/LatchkeyBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "BareJWTRoute",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Benchmarks/BareJWTRoute",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyCoreTests",
            dependencies: [
                "LatchkeyCore",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                "LatchkeyWebAuthn",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyJWTTests",
            dependencies: [
                "LatchkeyJWT",
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyProvidersTests",
            dependencies: [
                "LatchkeyProviders",
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyWalletsTests",
            dependencies: ["LatchkeyWallets", "LatchkeyCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyWebAuthnTests",
            dependencies: [
                "LatchkeyWebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyDeliveryTests",
            dependencies: ["LatchkeyDelivery"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyStoreTests",
            dependencies: [
                "LatchkeyStore",
                "LatchkeyCore",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySDKEndToEndTests",
            dependencies: [
                "LatchkeyServer",
                "LatchkeyCore",
                "LatchkeyStore",
                "LatchkeyWebAuthn",
                .product(name: "Latchkey", package: "Latchkey"),
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer",
                "LatchkeyCore",
                "LatchkeyDelivery",
                "LatchkeyJWT",
                "LatchkeyStore",
                "LatchkeyWebAuthn",
                .product(name: "LatchkeyAPI", package: "Latchkey"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
