import Foundation
import LatchkeyAPI
import Logging
import Testing

@testable import LatchkeyServer

/// JSON log lines and request ids below the server: one object per line with the metadata as
/// fields (numbers as numbers), and which caller-given ids are taken.
@Suite struct LoggingTests {
    @Test func aLineIsOneJSONObjectWithItsMetadataAsFields() throws {
        let sink = LogSink(capturing: true)
        var logger = Logger(label: "latchkey") { JSONLogHandler(label: $0, sink: sink) }
        logger.logLevel = .debug
        logger[metadataKey: "request_id"] = "abc"
        logger.info("request", metadata: ["status": .stringConvertible(200), "duration_ms": .stringConvertible(1.5), "route": "/user"])
        logger.trace("not at this level")
        let lines = sink.captured
        #expect(lines.count == 1 && !lines[0].contains("\n"))
        let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(lines[0].utf8))
        #expect(object["request_id"] == "abc" && object["status"] == .number(200) && object["duration_ms"] == .number(1.5))
        #expect(object["message"] == "request" && object["level"] == "info" && object["logger"] == "latchkey" && object["time"] != nil)
    }

    @Test(arguments: [
        ("c0ffee-42", true), ("trace.id:1_x", true), (String(repeating: "a", count: 128), true), ("", false),
        (String(repeating: "a", count: 129), false), ("has space", false), ("semi;colon", false), ("new\nline", false),
        ("é", false), ("{\"json\":1}", false),
    ])
    func aCallersRequestIDIsTakenWhenSane(_ id: String, _ taken: Bool) {
        #expect(RequestLogMiddleware.isSane(id) == taken)
    }

    @Test func loggingIsConfigured() throws {
        let json = try ServerConfiguration.load(environment: [
            "LATCHKEY_LOG_FORMAT": "JSON", "GOTRUE_LOG_LEVEL": "warn", "LATCHKEY_LOG_REQUESTS": "true",
        ]).logging
        #expect(json == LogSettings(level: .warning, format: .json, requests: true))
        #expect(try ServerConfiguration.load(environment: [:]).logging == LogSettings())
        for bad in [["LATCHKEY_LOG_FORMAT": "xml"], ["LATCHKEY_LOG_LEVEL": "loud"]] {
            #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: bad) }
        }
    }

    @Test func metricsAreNeverOpenByDefault() throws {
        #expect(try ServerConfiguration.load(environment: [:]).metrics == MetricsSettings())
        let both = try ServerConfiguration.load(environment: [
            "GOTRUE_METRICS_ENABLED": "true", "LATCHKEY_METRICS_TOKEN": "0123456789abcdef", "LATCHKEY_METRICS_PORT": "9100",
        ]).metrics
        #expect(both == MetricsSettings(enabled: true, token: "0123456789abcdef", port: 9100))
        for bad in [
            ["GOTRUE_METRICS_ENABLED": "true"], ["GOTRUE_METRICS_ENABLED": "true", "LATCHKEY_METRICS_TOKEN": "short"],
            ["GOTRUE_METRICS_ENABLED": "true", "LATCHKEY_METRICS_PORT": "70000"],
        ] {
            #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: bad) }
        }
    }
}
