import Foundation

/// Go's `time.ParseDuration` format, as GoTrue's `ban_duration` takes it: a sequence of decimal
/// numbers with units, e.g. `24h`, `1h30m`, `1.5h`, `90s`, `500ms`.
public enum GoDuration {
    /// Go's `time.Duration` maximum, in whole hours: the longest `ban_duration` GoTrue reads,
    /// and the longest service-token lifetime.
    public static let longest: TimeInterval = 2_562_047 * 3600

    static let units: [String: Double] = ["ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600]

    /// The duration in seconds, or `nil` when `text` is not a Go duration.
    public static func seconds(_ text: String) -> TimeInterval? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if rest.first == "-" || rest.first == "+" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        if rest == "0" { return 0 }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { !($0.isASCII && ($0.isNumber || $0 == ".")) }
            guard let factor = units[String(unit)] else { return nil }
            rest = rest.dropFirst(unit.count)
            total += value * factor
        }
        return total.isFinite ? sign * total : nil
    }
}
