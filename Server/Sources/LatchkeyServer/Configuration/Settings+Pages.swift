import Foundation

extension Setting {
    /// The hosted sign-in pages (`/ui/…`) and the operators' console (`/ui/admin`).
    static let pages: [Setting] = [
        .init(
            key: "ui-enabled", environment: ["LATCHKEY_UI_ENABLED"], defaultValue: "true",
            summary:
                "The hosted sign-in pages at `/ui/sign-in`, `/ui/sign-up`, `/ui/reset`, `/ui/email-change`: plain HTML forms an app opens in `ASWebAuthenticationSession` with a PKCE challenge and gets a session back (docs/hosted-pages.md). `false`: every `/ui` page answers 404."
        ),
        .init(
            key: "ui-logo-url", environment: ["LATCHKEY_UI_LOGO_URL"], defaultValue: "",
            summary: "An `https://` image shown above every hosted page (the app name as text when unset)."
        ),
        .init(
            key: "ui-accent-color", environment: ["LATCHKEY_UI_ACCENT_COLOR"], defaultValue: "#2b59c3",
            summary: "The buttons' and links' colour, `#rrggbb`."
        ),
        .init(
            key: "ui-background-color", environment: ["LATCHKEY_UI_BACKGROUND_COLOR"], defaultValue: "#f4f5f7",
            summary: "The pages' background colour, `#rrggbb`."
        ),
        .init(
            key: "ui-templates-dir", environment: ["LATCHKEY_UI_TEMPLATES_DIR"], defaultValue: "",
            summary:
                "Folder of Mustache files overriding hosted pages: `layout.mustache` and `<page>.mustache` (see docs/hosted-pages.md); an unknown name or a template that does not parse refuses to start."
        ),
        .init(
            key: "admin-console", environment: ["LATCHKEY_ADMIN_CONSOLE"], defaultValue: "false",
            summary:
                "The operators' console at `/ui/admin` (find users, end their sessions, ban, remove factors and passkeys, delete): off unless `true`. Operators sign in with a service token, exchanged once for a short cookie session."
        ),
        .init(
            key: "admin-console-session", environment: ["LATCHKEY_ADMIN_CONSOLE_SESSION"], defaultValue: "900",
            summary: "Seconds an operator's console session lasts from sign-in."
        ),
    ]
}
