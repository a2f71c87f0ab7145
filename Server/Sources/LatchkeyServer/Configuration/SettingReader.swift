import Foundation
import LatchkeyCore

/// Looks settings up by key in the flags, then the environment.
struct SettingReader {
    let environment: [String: String]
    let overrides: [String: String]
    var profile: SettingsProfile = .strict

    /// The value set for `key` (a flag, else the environment), else GoTrue's default under its
    /// profile when it differs from Latchkey's; `nil` leaves the caller's (Latchkey's) default.
    func string(_ key: String) -> String? {
        explicit(key) ?? (profile == .gotrue ? Setting.goTrueDefaults[key] : nil)
    }

    /// The value set for `key`, a flag or the environment, ignoring the profile.
    func explicit(_ key: String) -> String? {
        if let value = overrides[key], !value.isEmpty { return value }
        guard let setting = Setting.all.first(where: { $0.key == key }) else { return nil }
        for name in setting.environment {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// A rate limit of `period` seconds: a count, `off` (nothing counted), or GoTrue's
    /// `N/duration` (`100/30m`: 100 per half hour); `nil` when unset.
    func limit(_ key: String, period: Int) throws -> RateLimit? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text.lowercased() == "off" { return .off }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let count = Int(parts[0]), count >= 0, let seconds = Self.goDuration(String(parts[1])), seconds >= 1 else {
                throw ConfigurationError("\(key) must be a count, a count/duration such as 100/30m, or off, not '\(text)'")
            }
            return RateLimit(count: count, period: seconds)
        }
        return try int(key).map { RateLimit(count: $0, period: period) }
    }

    /// The value set for `key`, else its default: GoTrue's under that profile, else the one the
    /// catalogue gives (``Setting/defaultValue``: each default is written there, once), read as a
    /// value set would be.
    func int(orDefault key: String) throws -> Int { try int(key) ?? catalogueDefault(key, SettingReader.int) }

    /// ``int(orDefault:)`` for a switch.
    func bool(orDefault key: String) throws -> Bool { try bool(key) ?? catalogueDefault(key, SettingReader.bool) }

    /// ``int(orDefault:)`` for seconds (a number or a Go duration).
    func seconds(orDefault key: String) throws -> Int { try seconds(key) ?? catalogueDefault(key, SettingReader.seconds) }

    /// ``int(orDefault:)`` for a rate limit of `period` seconds.
    func limit(orDefault key: String, period: Int) throws -> RateLimit {
        try limit(key, period: period) ?? catalogueDefault(key, { reader in { try reader.limit($0, period: period) } })
    }

    /// ``int(orDefault:)`` for text.
    func string(orDefault key: String) -> String { string(key) ?? catalogueDefault(key, { reader in { reader.string($0) } }) }

    /// `key`'s default in the catalogue, read by `read` as if it were set. A setting read with a
    /// default must have one that reads (`test_settings_defaults.py` checks each).
    private func catalogueDefault<T>(_ key: String, _ read: (SettingReader) -> (String) throws -> T?) -> T {
        let text = Setting.all.first { $0.key == key }?.defaultValue ?? ""
        guard let value = try? read(SettingReader(environment: [:], overrides: [key: text]))(key) else {
            preconditionFailure("the setting \(key) has no default that reads as \(T.self): give it one in Settings")
        }
        return value
    }

    func int(_ key: String) throws -> Int? {
        guard let text = string(key) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed), value >= 0 { return value }
        // GoTrue reads its rate limits as decimals (`GOTRUE_RATE_LIMIT_OTP=30.0`): whole counts here.
        if key.hasPrefix("rate-limit-"), let value = Double(trimmed), value.isFinite, value >= 0, value < Double(Int32.max) {
            return Int(value.rounded(.down))
        }
        throw ConfigurationError("\(key) must be a whole number ≥ 0, not '\(text)'")
    }

    /// Seconds, as a number or a Go duration as GoTrue reads them (`90s`, `5m`, `1h30m`, `1.5h`,
    /// `500ms`, `1ns`), rounded up to whole seconds.
    func positiveSeconds(_ key: String) throws -> Duration {
        let seconds = try self.seconds(orDefault: key)
        guard seconds >= 1 else { throw ConfigurationError("\(key) must be at least 1 second, not \(seconds)") }
        return .seconds(seconds)
    }

    func seconds(_ key: String) throws -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let value = Int(text), value >= 0 { return value }
        guard let value = Self.goDuration(text) else {
            throw ConfigurationError("\(key) must be seconds or a duration like 60s, not '\(text)'")
        }
        return value
    }

    /// A Go duration (`time.ParseDuration`, read by Core's one parser, ``GoDuration``) in whole
    /// seconds, rounded up; `nil` when it is not one, negative, or past a year.
    static func goDuration(_ text: String) -> Int? {
        guard let seconds = GoDuration.seconds(text), seconds >= 0, seconds <= 366 * 86400 else { return nil }
        return Int(seconds.rounded(.up))
    }

    func bool(_ key: String) throws -> Bool? {
        guard let text = string(key) else { return nil }
        guard let value = Self.boolean(text) else { throw ConfigurationError("\(key) must be true or false, not '\(text)'") }
        return value
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": true
        case "0", "false", "no", "off": false
        default: nil
        }
    }

    func list(_ key: String) -> [String] {
        (string(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
