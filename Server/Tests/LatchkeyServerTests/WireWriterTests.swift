import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyServer

/// The direct writer of users and sessions writes exactly the bytes `WireJSON`'s encoder writes,
/// or leaves the value to it.
@Suite struct WireWriterTests {
    static let strings = [
        "", "ada@example.com", "quote \" backslash \\ slash /", "émoji 🦊 ｆｕｌｌ", "tab\tnew\nline", "\u{7F}\u{1}", "\u{2028}",
        "https://example.com/a?b=c&d=e",
    ]
    static let keys = ["a", "B", "a_b", "aB", "a1", "A", "b", "_", "z9", "émoji", "sp ace", "quote\"", "\u{1}"]
    static let numbers: [Double] = [0, -1, 42, 1_700_000_000, 9_007_199_254_740_991, 0.5, -2.25, 1e300]

    static func value(_ depth: Int, _ g: inout some RandomNumberGenerator) -> JSONValue {
        switch Int.random(in: 0...(depth > 1 ? 3 : 5), using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2: return .number(numbers.randomElement(using: &g)!)
        case 3: return .string(strings.randomElement(using: &g)!)
        case 4: return .array((0..<Int.random(in: 0...3, using: &g)).map { _ in value(depth + 1, &g) })
        default: return .object(object(depth + 1, &g))
        }
    }

    static func object(_ depth: Int, _ g: inout some RandomNumberGenerator) -> [String: JSONValue] {
        Dictionary(
            (0..<Int.random(in: 0...4, using: &g)).map { _ in (keys.randomElement(using: &g)!, value(depth, &g)) },
            uniquingKeysWith: { first, _ in first })
    }

    static func date(_ g: inout some RandomNumberGenerator) -> Date? {
        Bool.random(using: &g) ? nil : Date(timeIntervalSince1970: Double.random(in: 0...2_000_000_000, using: &g))
    }

    static func user(_ g: inout some RandomNumberGenerator, plain: Bool) -> User {
        let id = UUID()
        func text() -> String { plain ? "ada@example.com" : strings.randomElement(using: &g)! }
        var user = User(
            id: id, aud: "authenticated", role: "authenticated", email: text(), phone: plain ? "" : text(),
            appMetadata: plain ? ["provider": "email", "providers": ["email"]] : object(0, &g),
            userMetadata: plain ? ["email_verified": true, "n": 3] : object(0, &g),
            identities: (0..<Int.random(in: 0...2, using: &g)).map { _ in
                Identity(
                    identityID: UUID(), id: id.uuidString.lowercased(), userID: id,
                    identityData: plain ? ["sub": .string(id.uuidString), "email_verified": false] : object(0, &g),
                    provider: "email", email: Bool.random(using: &g) ? text() : nil, lastSignInAt: date(&g),
                    createdAt: Date(timeIntervalSince1970: 1_700_000_000.125), updatedAt: Date())
            },
            factors: Bool.random(using: &g)
                ? nil
                : [
                    Factor(
                        id: UUID(), friendlyName: Bool.random(using: &g) ? text() : nil, factorType: .totp,
                        status: .verified, createdAt: Date(), updatedAt: Date(), lastChallengedAt: date(&g),
                        phone: Bool.random(using: &g) ? "+••••••••4567" : nil)
                ],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.5), updatedAt: Date())
        user.emailConfirmedAt = date(&g)
        user.phoneConfirmedAt = date(&g)
        user.confirmedAt = date(&g)
        user.confirmationSentAt = date(&g)
        user.recoverySentAt = date(&g)
        user.newEmail = Bool.random(using: &g) ? text() : nil
        user.emailChangeSentAt = date(&g)
        user.newPhone = Bool.random(using: &g) ? text() : nil
        user.phoneChangeSentAt = date(&g)
        user.reauthenticationSentAt = date(&g)
        user.invitedAt = date(&g)
        user.lastSignInAt = date(&g)
        user.bannedUntil = date(&g)
        user.deletedAt = date(&g)
        user.isAnonymous = Bool.random(using: &g)
        return user
    }

    @Test func usersAndSessionsAreWrittenAsTheEncoderWritesThem() throws {
        var g = SystemRandomNumberGenerator()
        let encoder = WireJSON.makeEncoder()
        var direct = 0
        for index in 0..<1_500 {
            let plain = index % 3 == 0
            let user = Self.user(&g, plain: plain)
            let session = Session(
                accessToken: "eyJhbGciOiJFUzI1NiJ9.e30.sig", expiresIn: 3600, expiresAt: 1_800_000_000 + index,
                refreshToken: "r/t+\(index)",
                user: user)
            for (written, expected) in [
                (WireWriter.json(user), try encoder.encode(user)), (WireWriter.json(session), try encoder.encode(session)),
            ] {
                if let written {
                    direct += 1
                    #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
                } else {
                    #expect(!plain, "a plain user was left to the encoder")
                }
            }
        }
        #expect(direct >= 1_000)
    }

    @Test func aWeakPasswordReportIsLeftToTheEncoder() {
        var g = SystemRandomNumberGenerator()
        let session = Session(
            accessToken: "a", expiresIn: 1, expiresAt: 2, refreshToken: "r", user: Self.user(&g, plain: true),
            weakPassword: WeakPassword(reasons: [.init(rawValue: "length")]))
        #expect(WireWriter.json(session) == nil)
    }

    /// `/otp`'s answer: every combination of present and absent fields, byte for byte.
    @Test func codeAnswersAreWrittenAsTheEncoderWritesThem() throws {
        var g = SystemRandomNumberGenerator()
        let encoder = WireJSON.makeEncoder()
        var direct = 0
        for _ in 0..<500 {
            func some<T>(_ value: T) -> T? { Bool.random(using: &g) ? value : nil }
            let answer = OTPResponse(
                messageID: some(Self.strings.randomElement(using: &g)!), channel: some("email"),
                sentTo: some(Self.strings.randomElement(using: &g)!), codeLength: some(Int.random(in: 6...10, using: &g)),
                expiresIn: some(3600), resendAfter: some(Int.random(in: -1...60, using: &g)), maxAttempts: some(5))
            if let written = WireWriter.json(answer) {
                direct += 1
                #expect(String(decoding: written, as: UTF8.self) == String(decoding: try encoder.encode(answer), as: UTF8.self))
            } else {
                // Only a control character is left to the encoder.
                #expect([answer.messageID, answer.sentTo].contains { $0?.utf8.contains { $0 < 0x20 || $0 == 0x7F } == true })
            }
        }
        #expect(direct >= 250)
        #expect(WireWriter.json(OTPResponse()).map { String(decoding: $0, as: UTF8.self) } == "{}")
    }

    /// The development mailbox's answer reads back as what was written, whatever the bodies hold.
    @Test func mailboxAnswersReadBackAsWritten() throws {
        var g = SystemRandomNumberGenerator()
        let hostile = Self.strings + ["<a href=\"x\">\r\n</a>", "\u{0}\u{8}\u{C}\u{1F}", "\\u0041", String(repeating: "ß", count: 3000)]
        for count in [0, 1, 2, 7] {
            let answer = MailboxResponse(
                messages: (0..<count).map { _ in
                    MailboxMessage(
                        id: UUID().uuidString.lowercased(),
                        to: (0..<Int.random(in: 0...2, using: &g)).map { _ in hostile.randomElement(using: &g)! },
                        subject: hostile.randomElement(using: &g)!, text: hostile.randomElement(using: &g)!,
                        html: hostile.randomElement(using: &g)!, createdAt: WireJSON.formatDate(Date()))
                })
            let written = WireWriter.json(answer)
            #expect(try WireJSON.makeDecoder().decode(MailboxResponse.self, from: Data(written)) == answer)
            #expect(try JSONSerialization.jsonObject(with: Data(written)) is [String: Any])
        }
    }
}
