import Foundation
import LatchkeyCore
import Logging

extension ServerConfiguration {
    static func logSettings(_ reader: SettingReader) throws -> LogSettings {
        let levelText = reader[\.logLevel].lowercased()
        guard let level = Logger.Level(rawValue: levelText == "warn" ? "warning" : levelText) else {
            throw ConfigurationError("log-level (LATCHKEY_LOG_LEVEL) must be trace, debug, info, notice, warning, error or critical")
        }
        let formatText = reader[\.logFormat].lowercased()
        guard let format = LogSettings.Format(rawValue: formatText) else {
            throw ConfigurationError("log-format (LATCHKEY_LOG_FORMAT) must be text or json")
        }
        return LogSettings(level: level, format: format, requests: try reader[\.logRequests])
    }
}

extension ServerConfiguration {
    /// Metrics are never open to anyone by default: on, they need a token or a port of their own.
    static func metricsSettings(_ reader: SettingReader) throws -> MetricsSettings {
        let enabled = try reader[\.metricsEnabled]
        let token = reader[\.metricsToken]
        let port = try reader[\.metricsPort]
        if let token, token.count < 16 { throw ConfigurationError("metrics-token (LATCHKEY_METRICS_TOKEN) must be 16 characters or more") }
        if enabled, token == nil, port == nil {
            throw ConfigurationError(
                "metrics are on (GOTRUE_METRICS_ENABLED) but neither LATCHKEY_METRICS_TOKEN nor LATCHKEY_METRICS_PORT says who may read them"
            )
        }
        return MetricsSettings(enabled: enabled, token: token, port: port, host: reader[\.metricsHost])
    }
}

extension ServerConfiguration {
    /// Traces are on with `OTEL_TRACES_EXPORTER=otlp` or an OTLP endpoint, off with
    /// `OTEL_SDK_DISABLED=true`; only OTLP over HTTP is built in.
    static func tracingEnabled(_ reader: SettingReader, environment: [String: String]) throws -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        let exporter = reader[\.tracesExporter]?.lowercased()
        guard exporter == "otlp" || (exporter == nil && reader[\.tracesEndpoint] != nil) else {
            guard exporter == nil || exporter == "none" else {
                throw ConfigurationError("OTEL_TRACES_EXPORTER must be otlp or none, not '\(exporter ?? "")'")
            }
            return false
        }
        let otlpProtocol = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
        if let otlpProtocol, !["http/protobuf", "http/json"].contains(otlpProtocol) {
            throw ConfigurationError("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (OTLP over gRPC is not built in)")
        }
        return true
    }
}

extension ServerConfiguration {
    /// `http-header-timeout`, `http-body-timeout`, `http-idle-timeout`: whole seconds, at least 1.
    static func httpTimeouts(_ reader: SettingReader) throws -> HTTPTimeouts {
        HTTPTimeouts(
            header: try Duration.seconds(reader[\.httpHeaderTimeout]),
            body: try Duration.seconds(reader[\.httpBodyTimeout]),
            idle: try Duration.seconds(reader[\.httpIdleTimeout]))
    }
}
