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
        let logo = reader[\.uiLogoURL]
        if let logo, !(logo.lowercased().hasPrefix("https://") && URL(string: logo) != nil) {
            throw ConfigurationError("ui-logo-url (LATCHKEY_UI_LOGO_URL) must be an https:// URL")
        }
        let brand = PageRenderer.Brand(
            appName: appName, logoURL: logo, accent: try color(\.uiAccentColor, reader),
            background: try color(\.uiBackgroundColor, reader))
        let renderer: PageRenderer
        do {
            renderer = try PageRenderer.load(directory: reader[\.uiTemplatesDir], brand: brand)
        } catch let error as TemplateError {
            throw ConfigurationError("ui-templates-dir (LATCHKEY_UI_TEMPLATES_DIR): \(error.description)")
        }
        return PageSettings(
            enabled: try reader[\.uiEnabled], adminConsole: try reader[\.adminConsole],
            adminSession: try reader[\.adminConsoleSession], renderer: renderer)
    }

    /// A `#rrggbb` colour setting.
    static func color(_ path: Setting.Path<String>, _ reader: SettingReader) throws -> String {
        let text = reader[path], key = Setting.self[keyPath: path].key
        let hex = text.dropFirst()
        guard text.hasPrefix("#"), hex.count == 6, hex.allSatisfy(\.isHexDigit) else {
            throw ConfigurationError("\(key) must be a colour written #rrggbb")
        }
        return text.lowercased()
    }
}
