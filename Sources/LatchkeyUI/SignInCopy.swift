import Foundation

/// The words of ``SignInView``: each ``Key`` has its English and French text in the module's
/// strings catalogue (`Resources/Localizable.xcstrings`), picked by the user's language. An app
/// changes any of them with ``overrides``, or translates them into another language with a
/// catalogue of its own (``table`` in ``bundle``) using the same keys.
public struct SignInCopy {
    /// The catalogue's keys. Those ending in a format (`%@`, `%lld`) take one argument.
    public enum Key: String, CaseIterable, Sendable {
        case title = "title"
        case welcomeTitle = "welcome.title"
        case welcomeSubtitle = "welcome.subtitle %@"
        case welcomeContinue = "welcome.continue"
        case welcomeSendCode = "welcome.send-code %@"
        case welcomeAnotherAccount = "welcome.another-account"
        case choicesEmail = "choices.email"
        case choicesPhone = "choices.phone"
        case choicesSendCode = "choices.send-code"
        case choicesOr = "choices.or"
        case choicesPasskey = "choices.passkey"
        case choicesApple = "choices.apple"
        case choicesDeviceKey = "choices.device-key"
        case codeTitle = "code.title"
        case codeSentTo = "code.sent-to %@"
        case codeField = "code.field"
        case codeSubmit = "code.submit"
        case codeResend = "code.resend"
        case codeResendIn = "code.resend-in %lld"
        case codeBack = "code.back"
        case upgradePasskeyTitle = "upgrade.passkey.title"
        case upgradePasskeyBody = "upgrade.passkey.body"
        case upgradePasskeyAccept = "upgrade.passkey.accept"
        case upgradeDeviceKeyTitle = "upgrade.device-key.title"
        case upgradeDeviceKeyBody = "upgrade.device-key.body"
        case upgradeDeviceKeyAccept = "upgrade.device-key.accept"
        case upgradeDeviceKeyName = "upgrade.device-key.name"
        case upgradeDecline = "upgrade.decline"
        case noticeDeviceKeyRevoked = "notice.device-key-revoked"
        case noticeBiometryChanged = "notice.biometry-changed"
        case noticeCancelledThenCode = "notice.cancelled-then-code"
        case noticeOffline = "notice.offline"
        case noticeWrongCodeCount = "notice.wrong-code %lld"
        case noticeWrongCode = "notice.wrong-code"
        case noticeCodeExpired = "notice.code-expired"
        case noticeTooManyAttempts = "notice.too-many-attempts"
        case noticeRateLimitedCount = "notice.rate-limited %lld"
        case noticeRateLimited = "notice.rate-limited"
        case noticeInvalidAddress = "notice.invalid-address"
        case noticeUnknownAccount = "notice.unknown-account"
        case a11yWorking = "a11y.working"
        case a11yCodeField = "a11y.code-field"
        case a11yNotice = "a11y.notice"
    }

    /// Texts of the app's own, by key (already in the user's language); they win over any catalogue.
    public var overrides: [Key: String]
    /// A catalogue of the app's own with these keys (its table in `bundle`), tried before the module's.
    public var table: String?
    /// The bundle of ``table`` (the app's main bundle by default).
    public var bundle: Bundle
    /// The language to use, as a catalogue's language code (`"fr"`); `nil` follows the user's.
    public var language: String?

    /// The module's words, changed by `overrides`.
    public init(overrides: [Key: String] = [:], table: String? = nil, bundle: Bundle = .main, language: String? = nil) {
        self.overrides = overrides
        self.table = table
        self.bundle = bundle
        self.language = language
    }

    /// The text of `key`, with `arguments` put in its format.
    ///
    /// A text of the app's (an override, its catalogue) whose format differs from the key's (a
    /// `%@` too many, a `%lld` for a `%@`) is passed over for the module's: a wrong format in
    /// `String(format:)` reads memory that is not there.
    public func callAsFunction(_ key: Key, _ arguments: any CVarArg...) -> String {
        let expected = Self.formats(key.rawValue)
        let template = candidates(key).lazy.compactMap { $0() }.first { Self.formats($0) == expected } ?? key.rawValue
        guard !arguments.isEmpty else { return template }
        return String(
            format: template, locale: Locale(identifier: language ?? Locale.preferredLanguages.first ?? "en"), arguments: arguments)
    }

    /// The format specifiers of `text`, in order (`%%` is none).
    static func formats(_ text: String) -> [String] {
        text.matches(of: /%(%|@|lld|ld|d|s)/).map { String($0.output.1) }.filter { $0 != "%" }
    }

    /// Where `key` is found, best first, each looked up only if those before it fail: the app's
    /// override and catalogue, the module's as the build compiled it (Apple platforms), the
    /// module's as it is copied (elsewhere, Linux), its English.
    private func candidates(_ key: Key) -> [() -> String?] {
        let name = key.rawValue
        return [
            { overrides[key] },
            { table.flatMap { Self.find(name, in: bundle, table: $0, language: language) } },
            { Self.find(name, in: .module, table: nil, language: language) },
            { Catalogue.shared?.text(name, languages: language.map { [$0] } ?? Locale.preferredLanguages) },
            { Catalogue.shared?.text(name, languages: ["en"]) },
        ]
    }

    /// `key` in `bundle`'s `table`: in the user's language, or in `language` (its `.lproj`, else
    /// the base language's, else English).
    static func find(_ key: String, in bundle: Bundle, table: String?, language: String?) -> String? {
        var localized = bundle
        if let language {
            let base = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? language
            let paths = [language, base, "en"].compactMap { bundle.path(forResource: $0, ofType: "lproj") }
            guard let path = paths.first, let found = Bundle(path: path) else { return nil }
            localized = found
        }
        let found = localized.localizedString(forKey: key, value: nil, table: table)
        return found == key ? nil : found
    }
}

/// The strings catalogue as its JSON says, where the build copies it as it is.
struct Catalogue: Decodable, Sendable {
    struct Unit: Decodable, Sendable { var value: String }
    struct Localization: Decodable, Sendable { var stringUnit: Unit }
    struct Entry: Decodable, Sendable { var localizations: [String: Localization] }
    var sourceLanguage: String
    var strings: [String: Entry]

    static let shared: Catalogue? = {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "xcstrings"), let data = try? Data(contentsOf: url)
        else { return nil }
        return try? JSONDecoder().decode(Catalogue.self, from: data)
    }()

    /// `key` in the first of `languages` the catalogue has (`fr-CA` finds `fr`), else in its own.
    func text(_ key: String, languages: [String]) -> String? {
        guard let entry = strings[key] else { return nil }
        for language in languages {
            let code = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? language
            if let found = entry.localizations[language] ?? entry.localizations[code] { return found.stringUnit.value }
        }
        return entry.localizations[sourceLanguage]?.stringUnit.value
    }
}
