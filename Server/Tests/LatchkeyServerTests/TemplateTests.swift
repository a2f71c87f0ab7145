import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore
@testable import LatchkeyServer

@Suite struct TemplateTests {
    let user = UserRecord(
        id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
        userMetadata: ["name": "Ada & Co", "plan": ["tier": "pro"]], createdAt: Date(), updatedAt: Date())

    func composer(_ templates: MessageTemplates = .defaults) -> EmailComposer {
        EmailComposer(
            appName: "Acme <Shop>", externalURL: "https://auth.example.com", siteURL: "https://example.com", templates: templates,
            validMinutes: 10)
    }

    @Test func everyDefaultCarriesWhatItPromises() {
        for kind in MessageKind.allCases where !kind.isSMS {
            let mail = composer().email(
                kind, to: "ada@example.com", user: user, code: "123456", linkSecret: "SECRET", linkType: "signup",
                newEmail: "new@example.com", oldEmail: "ada@example.com")
            #expect(!mail.subject.isEmpty, "\(kind)")
            #expect(mail.html.hasPrefix("<!doctype html>"), "\(kind)")
            switch kind {
            case .passwordChanged, .emailChanged, .existingAccount, .factorEnrolled, .factorUnenrolled, .recoveryCodeUsed, .identityLinked,
                .identityUnlinked:
                #expect(!mail.text.contains("123456"), "\(kind)")
            case .reauthentication:
                #expect(mail.text.contains("is 123456."))
                #expect(!mail.text.contains("SECRET"))
            default:
                #expect(mail.text.contains("is 123456."), "\(kind)")
                #expect(mail.text.contains("https://auth.example.com/verify?token=SECRET&type=signup&redirect_to=https://example.com"))
                #expect(mail.html.contains("<strong>123456</strong>"), "\(kind)")
            }
        }
        #expect(
            composer().sms(to: "15551234567", user: user, code: "654321", validMinutes: 1)
                == "Your Acme <Shop> code is 654321. It expires in 1 minutes.")
    }

    @Test func htmlIsEscapedAndTextIsNot() {
        let mail = composer().email(.confirmation, to: "ada@example.com", user: user, code: "123456", linkSecret: "S")
        #expect(mail.text.contains("Your Acme <Shop> verification code"))
        #expect(mail.html.contains("Acme &lt;Shop&gt;"))
        #expect(mail.text.contains("&type=signup&redirect_to="))
        #expect(mail.html.contains("&amp;type=signup"))
    }

    @Test func overridesComeFromFilesSubjectsAndGoTrueNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "Hi {{ data.name }} ({{ data.plan.tier }}): {{ .Token }} or {{ .ConfirmationURL }} for {{ .Email }}"
            .write(to: folder.appendingPathComponent("magic_link.text.mustache"), atomically: true, encoding: .utf8)
        try "<p>{{ data.name }}</p>".write(to: folder.appendingPathComponent("magic_link.html.mustache"), atomically: true, encoding: .utf8)
        let templates = try MessageTemplates.load(
            directory: folder.path, subjects: [.magicLink: "{{ code }} is your {{ application.name }} code"],
            sms: "Your code is {{ .Code }}")
        let mail = composer(templates).email(.magicLink, to: "ada@example.com", user: user, code: "111222", linkSecret: "L")
        #expect(mail.subject == "111222 is your Acme <Shop> code")
        #expect(mail.text.hasPrefix("Hi Ada & Co (pro): 111222 or https://auth.example.com/verify?token=L&type=magiclink"))
        #expect(mail.text.hasSuffix("for ada@example.com"))
        #expect(mail.html == "<p>Ada &amp; Co</p>")
        // Kinds not overridden keep the defaults.
        #expect(composer(templates).email(.recovery, to: "ada@example.com", user: user, code: "1").subject == "Reset your password")
        #expect(composer(templates).sms(to: "1555", user: nil, code: "999000", validMinutes: 1) == "Your code is 999000")
    }

    @Test func badTemplatesAreClearErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "x".write(to: folder.appendingPathComponent("magiclink.txt"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateError.self) { try MessageTemplates.load(directory: folder.path) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("magiclink.txt"))
        try "x".write(to: folder.appendingPathComponent("sms.html.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateError.self) { try MessageTemplates.load(directory: folder.path) }
        #expect(throws: TemplateError.self) { try MessageTemplates.load(directory: nil, subjects: [.recovery: "{{#open}} never closed"]) }
        #expect(throws: TemplateError.self) { try MessageTemplates.load(directory: "/nonexistent/templates") }
        // A line break in a subject cannot inject a header.
        let templates = try MessageTemplates.load(directory: nil, subjects: [.recovery: "Reset\r\nBcc: x@example.com"])
        #expect(!composer(templates).email(.recovery, to: "a@example.com", user: nil, code: "1").subject.contains("\n"))
    }
}
