import Foundation
import LatchkeyAPI
import Logging
import Synchronization

/// Where log lines go: standard output, or (in tests) a buffer to read back.
public final class LogSink: Sendable {
    private let capturing: Bool
    private let lines = Mutex<[String]>([])

    /// Lines to standard output.
    public static let standardOutput = LogSink(capturing: false)

    /// A sink that keeps its lines (tests read them with ``captured``) instead of writing them.
    public init(capturing: Bool) {
        self.capturing = capturing
    }

    /// The lines written so far, when capturing.
    public var captured: [String] { lines.withLock { $0 } }

    func write(_ line: String) {
        lines.withLock { lines in
            if capturing {
                lines.append(line)
            } else {
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        }
    }
}

/// swift-log lines as JSON, one object per line (`LATCHKEY_LOG_FORMAT=json`): `time`, `level`,
/// `message`, `logger`, and the metadata's keys (`request_id`, `route`, `status`,
/// `duration_ms`, `user_id`, …) as fields of their own.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    let sink: LogSink

    public init(label: String, sink: LogSink = .standardOutput) {
        self.label = label
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: JSONValue] = [:]
        for (key, value) in metadata { fields[key] = Self.json(value) }
        for (key, value) in event.metadata ?? [:] { fields[key] = Self.json(value) }
        // Hummingbird names every request's lines `hb.request.id`; a shipper gets `request_id`.
        if let id = fields.removeValue(forKey: "hb.request.id"), fields["request_id"] == nil { fields["request_id"] = id }
        fields["time"] = .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        fields["level"] = .string(event.level.rawValue)
        fields["message"] = .string(event.message.description)
        fields["logger"] = .string(label)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(fields) else { return }
        sink.write(String(decoding: data, as: UTF8.self))
    }

    static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let value):
            if let number = value as? any BinaryInteger {
                .number(Double(Int64(number)))
            } else if let number = value as? Double {
                .number(number)
            } else {
                .string(value.description)
            }
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(values.mapValues(json))
        }
    }
}
