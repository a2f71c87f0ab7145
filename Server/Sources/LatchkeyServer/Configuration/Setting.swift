import Foundation
import LatchkeyCore

/// One setting as docs/configuration.md lists it: its key (the flag's name), its environment
/// names (Latchkey's first, then GoTrue's), its default as shown, GoTrue's where it differs, and
/// what it means. The typed declaration it comes from is a ``Setting/Of``.
public struct Setting: Sendable {
    public let key: String
    public let environment: [String]
    /// The default as docs/configuration.md shows it (empty: unset).
    public let defaultValue: String
    /// GoTrue's default as shown, where it differs and holds under the `gotrue` profile.
    public let goTrueDefault: String?
    public let summary: String

    /// A path to a typed setting (`\.otpLength`), as the loader names one: `reader[\.otpLength]`.
    typealias Path<Value: Sendable> = KeyPath<Setting.Type, Setting.Of<Value>>

    /// A setting the loader reads as `Value`: its names, its default (and GoTrue's, where it
    /// differs), its range, and how a value set is read, written once. An unset setting of an
    /// optional `Value` is `nil`.
    struct Of<Value: Sendable>: Sendable, SettingDeclaration {
        let entry: Setting
        let defaultValue: Value
        let goTrueDefault: Value?
        /// Reads a value set (non-empty), or says why it is not one.
        let read: @Sendable (String) throws -> Value

        var key: String { entry.key }

        var defaultsReadBack: Bool {
            func readsBack(_ shown: String?, _ value: Value?) -> Bool {
                // An optional setting's default (or an empty list) is unset, its shown text prose.
                guard let shown, let value, !["nil", "[]"].contains(String(describing: value)) else { return true }
                return (try? read(shown)).map { String(describing: $0) == String(describing: value) } ?? false
            }
            return readsBack(entry.defaultValue, defaultValue) && readsBack(entry.goTrueDefault, goTrueDefault)
        }
    }

    /// A rate limit's default: a count per the setting's period, or `off`.
    enum Budget: Sendable, ExpressibleByIntegerLiteral {
        case count(Int)
        case off

        init(integerLiteral value: Int) { self = .count(value) }

        func limit(per period: Int) -> RateLimit {
            switch self {
            case .count(let count): RateLimit(count: count, period: period)
            case .off: .off
            }
        }

        var shown: String {
            switch self {
            case .count(let count): String(count)
            case .off: "off"
            }
        }
    }
}

/// A typed setting whose listing in the catalogue is ``entry``.
protocol SettingDeclaration: Sendable {
    var entry: Setting { get }
    /// Whether its default, and GoTrue's, read back as themselves when set as shown: within the
    /// setting's range, and shown in docs/configuration.md as they are read.
    var defaultsReadBack: Bool { get }
}

extension Setting {
    private static func entry(_ key: String, _ environment: [String], _ shown: String, _ goTrue: String?, _ summary: String) -> Setting {
        Setting(key: key, environment: environment, defaultValue: shown, goTrueDefault: goTrue, summary: summary)
    }

    /// A switch: `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`).
    static func flag(
        _ key: String, _ environment: [String], default value: Bool, goTrue: Bool? = nil, shownForGoTrue: String? = nil,
        summary: String
    ) -> Of<Bool> {
        Of(
            entry: entry(key, environment, String(value), goTrue.map { String($0) } ?? shownForGoTrue, summary), defaultValue: value,
            goTrueDefault: goTrue
        ) { text in
            guard let value = SettingReader.boolean(text) else { throw ConfigurationError("\(key) must be true or false, not '\(text)'") }
            return value
        }
    }

    /// A whole number ≥ 0, within `range`.
    static func count(
        _ key: String, _ environment: [String], default value: Int, in range: ClosedRange<Int>? = nil, goTrue: Int? = nil,
        summary: String
    ) -> Of<Int> {
        Of(entry: entry(key, environment, String(value), goTrue.map { String($0) }, summary), defaultValue: value, goTrueDefault: goTrue) {
            try within(range, key, try wholeNumber(key, $0))
        }
    }

    /// ``count(_:_:default:in:goTrue:summary:)`` without a default: unset is `nil` (the loader
    /// says what then holds, `shown` in the docs).
    static func count(
        _ key: String, _ environment: [String], shown: String = "", in range: ClosedRange<Int>? = nil, summary: String
    ) -> Of<Int?> {
        Of(entry: entry(key, environment, shown, nil, summary), defaultValue: nil, goTrueDefault: nil) {
            try within(range, key, try wholeNumber(key, $0))
        }
    }

    /// Seconds, as a number or a Go duration (`90s`, `5m`, `1h30m`, `1.5h`, `500ms`) rounded up,
    /// within `range`.
    static func seconds(
        _ key: String, _ environment: [String], default value: Int, in range: PartialRangeFrom<Int>? = nil, goTrue: Int? = nil,
        summary: String
    ) -> Of<Int> {
        Of(entry: entry(key, environment, String(value), goTrue.map { String($0) }, summary), defaultValue: value, goTrueDefault: goTrue) {
            text in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let seconds = Int(trimmed).flatMap({ $0 >= 0 ? $0 : nil }) ?? SettingReader.goDuration(trimmed) else {
                throw ConfigurationError("\(key) must be seconds or a duration like 60s, not '\(text)'")
            }
            if let range, !range.contains(seconds) {
                throw ConfigurationError(
                    "\(key) must be at least \(range.lowerBound) second\(range.lowerBound == 1 ? "" : "s"), not \(seconds)")
            }
            return seconds
        }
    }

    /// ``seconds(_:_:default:in:goTrue:summary:)`` with a range that has an upper bound.
    static func seconds(
        _ key: String, _ environment: [String], default value: Int, in range: ClosedRange<Int>, summary: String
    ) -> Of<Int> {
        let unbounded = seconds(key, environment, default: value, summary: summary)
        return Of(entry: unbounded.entry, defaultValue: value, goTrueDefault: nil) { try within(range, key, try unbounded.read($0)) }
    }

    /// Text, taken as it is set.
    static func text(_ key: String, _ environment: [String], default value: String, summary: String) -> Of<String> {
        Of(entry: entry(key, environment, value, nil, summary), defaultValue: value, goTrueDefault: nil) { $0 }
    }

    /// Text without a default: unset is `nil` (`shown` says in the docs what then holds).
    static func text(_ key: String, _ environment: [String], shown: String = "", summary: String) -> Of<String?> {
        Of(entry: entry(key, environment, shown, nil, summary), defaultValue: nil, goTrueDefault: nil) { $0 }
    }

    /// Items separated by commas, each trimmed; empty ones dropped.
    static func list(
        _ key: String, _ environment: [String], default value: [String] = [], shown: String? = nil, summary: String
    ) -> Of<[String]> {
        Of(entry: entry(key, environment, shown ?? value.joined(separator: ","), nil, summary), defaultValue: value, goTrueDefault: nil) {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// A rate limit of `period` seconds: a count, `off` (nothing counted), or GoTrue's
    /// `N/duration` (`100/30m`: 100 per half hour).
    static func limit(
        _ key: String, _ environment: [String], default value: Budget, per period: Int, goTrue: Budget? = nil, summary: String
    ) -> Of<RateLimit> {
        Of(
            entry: entry(key, environment, value.shown, goTrue?.shown, summary), defaultValue: value.limit(per: period),
            goTrueDefault: goTrue?.limit(per: period)
        ) { text in
            let text = text.trimmingCharacters(in: .whitespaces)
            if text.lowercased() == "off" { return .off }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2 {
                guard let count = Int(parts[0]), count >= 0, let seconds = SettingReader.goDuration(String(parts[1])), seconds >= 1 else {
                    throw ConfigurationError("\(key) must be a count, a count/duration such as 100/30m, or off, not '\(text)'")
                }
                return RateLimit(count: count, period: seconds)
            }
            return RateLimit(count: try wholeNumber(key, text), period: period)
        }
    }

    /// A whole number ≥ 0. GoTrue reads its rate limits as decimals (`GOTRUE_RATE_LIMIT_OTP=30.0`):
    /// whole counts here.
    private static func wholeNumber(_ key: String, _ text: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed), value >= 0 { return value }
        if key.hasPrefix("rate-limit-"), let value = Double(trimmed), value.isFinite, value >= 0, value < Double(Int32.max) {
            return Int(value.rounded(.down))
        }
        throw ConfigurationError("\(key) must be a whole number ≥ 0, not '\(text)'")
    }

    private static func within(_ range: ClosedRange<Int>?, _ key: String, _ value: Int) throws -> Int {
        guard let range, !range.contains(value) else { return value }
        throw ConfigurationError("\(key) must be \(range.lowerBound)–\(range.upperBound), not \(value)")
    }
}
