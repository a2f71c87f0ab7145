import Foundation
import LatchkeyCore

/// Looks settings up by key in the flags, then the environment.
struct SettingReader {
    let environment: [String: String]
    let overrides: [String: String]
    var profile: SettingsProfile = .strict

    /// The setting at `path`: the value set (a flag, else the environment), else GoTrue's default
    /// under its profile where it differs, else the setting's own.
    ///
    /// Key paths to the catalogue's statics serve inside this module only: one from another
    /// module (a test's) traps in `swift_getKeyPath` on Linux with Swift 6.3. Pass the setting
    /// itself there (`reader[Setting.port]`).
    subscript<Value: Sendable>(_ path: Setting.Path<Value>) -> Value {
        get throws { try self[Setting.self[keyPath: path]] }
    }

    /// ``subscript(_:)-(Setting.Path<Value>)`` for the setting itself.
    subscript<Value: Sendable>(_ setting: Setting.Of<Value>) -> Value {
        get throws { try ifSet(setting) ?? setting.defaultValue }
    }

    /// Text settings read without fail.
    subscript(_ path: Setting.Path<String>) -> String { text(path) ?? Setting.self[keyPath: path].defaultValue }
    subscript(_ path: Setting.Path<String?>) -> String? { text(path) }
    subscript(_ path: Setting.Path<[String]>) -> [String] {
        let setting = Setting.self[keyPath: path]
        return text(path).map { (try? setting.read($0)) ?? [] } ?? setting.defaultValue
    }

    /// The value set for the setting at `path`, or GoTrue's default under its profile; `nil` when
    /// its own default holds.
    func ifSet<Value: Sendable>(_ path: Setting.Path<Value>) throws -> Value? { try ifSet(Setting.self[keyPath: path]) }

    /// The value set for the setting at `path`, ignoring the profile.
    func explicit<Value: Sendable>(_ path: Setting.Path<Value>) throws -> Value? { try explicit(Setting.self[keyPath: path]) }

    func explicit<Value: Sendable>(_ setting: Setting.Of<Value>) throws -> Value? { try text(setting.entry).map(setting.read) }

    func ifSet<Value: Sendable>(_ setting: Setting.Of<Value>) throws -> Value? {
        if let text = text(setting.entry) { return try setting.read(text) }
        return profile == .gotrue ? setting.goTrueDefault : nil
    }

    /// The text set for a setting: a flag, else the first of its environment names set
    /// (non-empty).
    private func text<Value: Sendable>(_ path: Setting.Path<Value>) -> String? { text(Setting.self[keyPath: path].entry) }

    private func text(_ setting: Setting) -> String? {
        if let value = overrides[setting.key], !value.isEmpty { return value }
        for name in setting.environment {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// A Go duration (`time.ParseDuration`, read by Core's one parser, ``GoDuration``) in whole
    /// seconds, rounded up; `nil` when it is not one, negative, or past a year.
    static func goDuration(_ text: String) -> Int? {
        guard let seconds = GoDuration.seconds(text), seconds >= 0, seconds <= 366 * 86400 else { return nil }
        return Int(seconds.rounded(.up))
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": true
        case "0", "false", "no", "off": false
        default: nil
        }
    }
}
