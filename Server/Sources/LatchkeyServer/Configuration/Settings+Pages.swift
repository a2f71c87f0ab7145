import Foundation

extension Setting {
    /// The hosted sign-in pages (`/ui/…`) and the operators' console (`/ui/admin`).
    static let pages: [any SettingDeclaration] = [
        uiEnabled,
        uiLogoURL,
        uiAccentColor,
        uiBackgroundColor,
        uiTemplatesDir,
        adminConsole,
        adminConsoleSession,
    ]
}

extension Setting {
    static let uiEnabled = flag(
        "ui-enabled", ["LATCHKEY_UI_ENABLED"], default: true,
        summary:
            "The hosted sign-in pages at `/ui/sign-in`, `/ui/sign-up`, `/ui/reset`, `/ui/email-change`: plain HTML forms an app opens in `ASWebAuthenticationSession` with a PKCE challenge and gets a session back (docs/hosted-pages.md). `false`: every `/ui` page answers 404."
    )

    static let uiLogoURL = text(
        "ui-logo-url", ["LATCHKEY_UI_LOGO_URL"],
        summary: "An `https://` image shown above every hosted page (the app name as text when unset).")

    static let uiAccentColor = text(
        "ui-accent-color", ["LATCHKEY_UI_ACCENT_COLOR"], default: "#2b59c3", summary: "The buttons' and links' colour, `#rrggbb`.")

    static let uiBackgroundColor = text(
        "ui-background-color", ["LATCHKEY_UI_BACKGROUND_COLOR"], default: "#f4f5f7", summary: "The pages' background colour, `#rrggbb`.")

    static let uiTemplatesDir = text(
        "ui-templates-dir", ["LATCHKEY_UI_TEMPLATES_DIR"],
        summary:
            "Folder of Mustache files overriding hosted pages: `layout.mustache` and `<page>.mustache` (see docs/hosted-pages.md); an unknown name or a template that does not parse refuses to start."
    )

    static let adminConsole = flag(
        "admin-console", ["LATCHKEY_ADMIN_CONSOLE"], default: false,
        summary:
            "The operators' console at `/ui/admin` (find users, end their sessions, ban, remove factors and passkeys, delete): off unless `true`. Operators sign in with a service token, exchanged once for a short cookie session."
    )

    static let adminConsoleSession = seconds(
        "admin-console-session", ["LATCHKEY_ADMIN_CONSOLE_SESSION"], default: 900, in: 60...86400,
        summary: "Seconds an operator's console session lasts from sign-in.")
}
