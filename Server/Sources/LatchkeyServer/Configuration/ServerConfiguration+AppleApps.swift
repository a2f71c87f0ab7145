import Foundation

/// What `/.well-known/apple-app-site-association` says: which iOS, iPadOS, macOS and visionOS apps
/// may use this domain's passkeys and saved passwords (`webcredentials`) and open which of its
/// URLs as universal links (`applinks`). Apple's CDN fetches it over `https` from the relying
/// party's domain; an app lists that domain in its Associated Domains entitlement.
public struct AppleAppSiteAssociation: Sendable, Equatable {
    /// `TEAMID.bundle.identifier` of each app.
    public var appIDs: [String]
    /// Paths that open the app (`/auth/callback`, `/auth/*`); none: no `applinks`.
    public var linkPaths: [String]

    public init(appIDs: [String], linkPaths: [String] = []) {
        self.appIDs = appIDs
        self.linkPaths = linkPaths
    }

    /// The file: `webcredentials.apps`, and `applinks.details` with one component per path.
    public var document: Data {
        var body: [String: Any] = ["webcredentials": ["apps": appIDs]]
        if !linkPaths.isEmpty {
            let components = linkPaths.map { ["/": $0, "comment": "Opens the app"] }
            body["applinks"] = ["details": [["appIDs": appIDs, "components": components]]]
        }
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// Read from `apple-app-ids` and `apple-app-link-paths`; `nil` when no app is named. A
    /// malformed App ID or path refuses the start, naming it.
    static func read(_ reader: SettingReader) throws -> AppleAppSiteAssociation? {
        let appIDs = reader[\.appleAppIds]
        let paths = reader[\.appleAppLinkPaths]
        guard !appIDs.isEmpty else {
            if !paths.isEmpty { throw ConfigurationError("apple-app-link-paths needs apple-app-ids (LATCHKEY_APPLE_APP_IDS)") }
            return nil
        }
        for id in appIDs where id.range(of: #"^[A-Z0-9]{10}\.[A-Za-z0-9][A-Za-z0-9.-]*$"#, options: .regularExpression) == nil {
            throw ConfigurationError(
                "apple-app-ids (LATCHKEY_APPLE_APP_IDS): \(id) is not TEAMID.bundle.identifier (a 10-character team ID)")
        }
        for path in paths where !path.hasPrefix("/") || path.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) {
            throw ConfigurationError("apple-app-link-paths (LATCHKEY_APPLE_APP_LINK_PATHS): \(path) is not a path such as /auth/*")
        }
        return AppleAppSiteAssociation(appIDs: appIDs, linkPaths: paths)
    }
}
