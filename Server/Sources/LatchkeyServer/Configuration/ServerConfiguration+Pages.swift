import Foundation
import LatchkeyCore

/// The hosted pages and the console, as configured.
public struct PageSettings: Sendable {
    /// `/ui/…` answers (`LATCHKEY_UI_ENABLED`).
    public var enabled: Bool
    /// The operators' console at `/ui/admin` (`LATCHKEY_ADMIN_CONSOLE`).
    public var adminConsole: Bool
    /// Seconds an operator's console session lasts.
    public var adminSession: Int
    public var renderer: PageRenderer
}

extension ServerConfiguration {
    static func pageSettings(_ reader: SettingReader, appName: String) throws -> PageSettings {
        let logo = reader.string("ui-logo-url")
        if let logo, !(logo.lowercased().hasPrefix("https://") && URL(string: logo) != nil) {
            throw ConfigurationError("ui-logo-url (LATCHKEY_UI_LOGO_URL) must be an https:// URL")
        }
        let brand = PageRenderer.Brand(
            appName: appName, logoURL: logo, accent: try color("ui-accent-color", reader) ?? "#2b59c3",
            background: try color("ui-background-color", reader) ?? "#f4f5f7")
        let renderer: PageRenderer
        do {
            renderer = try PageRenderer.load(directory: reader.string("ui-templates-dir"), brand: brand)
        } catch let error as TemplateError {
            throw ConfigurationError("ui-templates-dir (LATCHKEY_UI_TEMPLATES_DIR): \(error.description)")
        }
        let session = try reader.seconds(orDefault: "admin-console-session")
        guard (60...86400).contains(session) else {
            throw ConfigurationError("admin-console-session must be between 60 and 86400 seconds")
        }
        return PageSettings(
            enabled: try reader.bool(orDefault: "ui-enabled"), adminConsole: try reader.bool(orDefault: "admin-console"),
            adminSession: session, renderer: renderer)
    }

    /// A `#rrggbb` colour setting.
    static func color(_ key: String, _ reader: SettingReader) throws -> String? {
        guard let text = reader.string(key) else { return nil }
        let hex = text.dropFirst()
        guard text.hasPrefix("#"), hex.count == 6, hex.allSatisfy(\.isHexDigit) else {
            throw ConfigurationError("\(key) must be a colour written #rrggbb")
        }
        return text.lowercased()
    }
}
