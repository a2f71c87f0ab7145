import Foundation
import Testing

@testable import LatchkeyServer

/// Traces are off unless `OTEL_*` asks for them over OTLP/HTTP, and an exporter or protocol the
/// server does not have refuses to start.
@Suite struct TracingConfigurationTests {
    static let cases: [([String: String], Bool)] = [
        ([:], false),
        (["OTEL_TRACES_EXPORTER": "otlp"], true),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], true),
        (["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"], true),
        (["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], false),
        (["OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"], false),
        (["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"], true),
    ]

    @Test(arguments: cases)
    func tracesAreOnOnlyWhenAskedFor(_ environment: [String: String], _ on: Bool) throws {
        #expect(try ServerConfiguration.load(environment: environment).tracing == on)
    }

    @Test(arguments: [
        ["OTEL_TRACES_EXPORTER": "zipkin"], ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"],
        ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"],
    ])
    func whatIsNotBuiltInRefusesToStart(_ environment: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: environment) }
    }
}
