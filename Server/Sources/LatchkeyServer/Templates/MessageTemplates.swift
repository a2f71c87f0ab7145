import Foundation
import LatchkeyCore
import Mustache

/// The Mustache templates every message is rendered from: the defaults, with an operator's
/// files and GoTrue's subject and SMS settings laid over them.
///
/// A folder of overrides holds `<kind>.subject.mustache`, `<kind>.text.mustache` and
/// `<kind>.html.mustache` (`sms.text.mustache` for SMS), kinds as ``MessageKind`` names them;
/// any file may be left out. GoTrue-style names (`{{ .Token }}`, `{{ .ConfirmationURL }}`) are
/// understood too.
public struct MessageTemplates: MessageRenderer {
    /// One message's templates; SMS messages have only `text`.
    public struct Parts: Sendable {
        public var subject: MustacheTemplate
        public var text: MustacheTemplate
        public var html: MustacheTemplate
    }

    private var parts: [MessageKind: Parts]

    /// The built-in templates.
    public static let defaults: MessageTemplates = {
        var parts: [MessageKind: Parts] = [:]
        for kind in MessageKind.allCases {
            let source = DefaultTemplates.source(for: kind)
            // The defaults are tested to parse; a failure here is a bug in this file.
            parts[kind] = try! Parts(
                subject: MustacheTemplate(string: Self.plainText + source.subject),
                text: MustacheTemplate(string: Self.plainText + source.text), html: MustacheTemplate(string: source.html))
        }
        return MessageTemplates(parts: parts)
    }()

    /// The defaults with overrides: files from `directory`, then `subjects` and `sms` (GoTrue's
    /// `GOTRUE_MAILER_SUBJECTS_*`, `GOTRUE_SMS_TEMPLATE` and `GOTRUE_MFA_PHONE_TEMPLATE`). Throws ``TemplateError`` naming the
    /// file or setting that is unknown or does not parse.
    public static func load(
        directory: String?, subjects: [MessageKind: String] = [:], sms: String? = nil, mfaSMS: String? = nil
    ) throws -> MessageTemplates {
        var templates = defaults
        if let directory {
            let files: [String]
            do {
                files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
            } catch {
                throw TemplateError("the templates folder \(directory) cannot be read")
            }
            for file in files {
                let pieces = file.split(separator: ".").map(String.init)
                guard pieces.count == 3, pieces[2] == "mustache", let kind = MessageKind(rawValue: pieces[0]),
                    ["subject", "text", "html"].contains(pieces[1]), !(kind.isSMS && pieces[1] != "text")
                else {
                    throw TemplateError(
                        "unknown template file \(file): expected <kind>.<subject|text|html>.mustache with a kind of "
                            + MessageKind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                let path = (directory as NSString).appendingPathComponent(file)
                guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw TemplateError("the template \(path) cannot be read as UTF-8")
                }
                try templates.set(kind, part: pieces[1], source: source, origin: path)
            }
        }
        for (kind, subject) in subjects {
            try templates.set(kind, part: "subject", source: subject, origin: "the \(kind.rawValue) subject")
        }
        if let sms { try templates.set(.sms, part: "text", source: sms, origin: "the SMS template") }
        if let mfaSMS { try templates.set(.mfaSMS, part: "text", source: mfaSMS, origin: "the phone factor's template") }
        return templates
    }

    /// Renders `kind` with `values`.
    public func render(_ kind: MessageKind, _ values: TemplateValues) -> (subject: String, text: String, html: String) {
        guard let parts = parts[kind] ?? Self.defaults.parts[kind] else { return ("", "", "") }
        let context = values.context
        let subject = parts.subject.render(context).replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        return (subject.trimmingCharacters(in: .whitespaces), parts.text.render(context), parts.html.render(context))
    }

    private mutating func set(_ kind: MessageKind, part: String, source: String, origin: String) throws {
        let translated = Self.translatingGoTemplateNames(source)
        let template: MustacheTemplate
        do {
            template = try MustacheTemplate(string: part == "html" ? translated : Self.plainText + translated)
        } catch {
            throw TemplateError("\(origin) is not a valid Mustache template: \(error)")
        }
        var current = parts[kind] ?? Self.defaults.parts[kind]!
        switch part {
        case "subject": current.subject = template
        case "text": current.text = template
        default: current.html = template
        }
        parts[kind] = current
    }

    /// Subjects and text parts are plain text: no HTML escaping.
    static let plainText = "{{% CONTENT_TYPE: TEXT }}"

    /// GoTrue's Go-template names as Mustache names: `{{ .Token }}` → `{{ code }}`.
    static func translatingGoTemplateNames(_ source: String) -> String {
        let names = [
            "Token": "code", "Code": "code", "ConfirmationURL": "link", "TokenHash": "token_hash", "SiteURL": "site_url",
            "RedirectTo": "redirect_to", "Email": "email", "NewEmail": "new_email", "OldEmail": "old_email", "Phone": "phone",
            "SendingTo": "email", "Provider": "provider",
        ]
        return source.replacing(/\{\{\s*\.([A-Za-z]+)((?:\.[A-Za-z_]+)*)\s*\}\}/) { match in
            let name = String(match.output.1)
            let rest = String(match.output.2)
            if name == "Data" { return "{{ data\(rest) }}" }
            guard let mapped = names[name] else { return String(match.output.0) }
            return "{{ \(mapped)\(rest) }}"
        }
    }
}

/// A template that cannot be used.
public struct TemplateError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
