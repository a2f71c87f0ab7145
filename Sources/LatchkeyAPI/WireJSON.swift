import Foundation

/// JSON coders configured for the wire protocol: ISO-8601 dates with fractional seconds when
/// writing, with or without them when reading.
public enum WireJSON {
    /// An encoder for wire types.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        return encoder
    }

    /// A decoder for wire types.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not an ISO-8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    /// Formats a date as RFC 3339 with fractional seconds in UTC, as GoTrue does.
    public static func formatDate(_ date: Date) -> String {
        dateStyle.format(date)
    }

    /// Made once: building the style cost as much as formatting with it, on every date of every
    /// user the server answers with.
    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Parses an RFC 3339 date with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }
}
