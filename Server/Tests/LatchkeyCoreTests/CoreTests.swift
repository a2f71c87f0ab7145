import Foundation
import LatchkeyAPI
import LatchkeyCore
import Testing

@Suite struct EmailAddressTests {
    @Test(arguments: [
        ("Ada@Example.COM", "ada@example.com"), ("  bob@example.org ", "bob@example.org"),
        ("\u{212A}elvin@example.com", "kelvin@example.com"), ("ｆｕｌｌ@example.com", "full@example.com"),
        ("\tMiXeD.Case+Tag@Sub.Example.io\t ", "mixed.case+tag@sub.example.io"), (" \u{00A0}ada@example.com", "ada@example.com"),
        ("ÄDA@example.com", "äda@example.com"),
    ])
    func canonicalForms(raw: String, expected: String) {
        #expect(EmailAddress.canonical(raw) == expected)
    }

    @Test(arguments: [
        "", "plain", "a@b", "a@@b.com", "a b@c.com", "a\n@b.com", ".a@b.com", "a..b@c.com", "a@-b.com", "a@b.123",
        String(repeating: "x", count: 65) + "@example.com", "x@" + String(repeating: "a", count: 250) + ".com", "<a>@b.com",
    ])
    func invalidAddresses(raw: String) {
        #expect(EmailAddress.canonical(raw) == nil)
    }

    /// The ASCII fast path and Foundation's Unicode path agree on every ASCII address.
    @Test func asciiAddressesCanonicalizeAsFoundationWould() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09.-_+@ \t!#x\u{7F}\u{01}")
        for _ in 0..<2000 {
            let raw = String((0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            // A leading no-break space sends the same address down the Unicode path.
            #expect(EmailAddress.canonical(raw) == EmailAddress.canonical("\u{00A0}" + raw), "\(raw.debugDescription)")
        }
    }

    /// The same on addresses built to sit near every rule's edge (dots, hyphens, forbidden and
    /// control characters, label and part lengths, digit-only top-level labels), about half valid.
    @Test func asciiAddressesNearEveryRuleCanonicalizeAsFoundationWould() {
        var generator = SystemRandomNumberGenerator()
        let localAlphabet = Array("abcXYZ019.+_-!#$%&'*/=?^{|}~\"(),:;<>[]\\`@ \u{7F}\u{1F}")
        let labelAlphabet = Array("abcXYZ0189-_.")
        func piece(_ alphabet: [Character], _ lengths: ClosedRange<Int>) -> String {
            let common = alphabet.prefix(6)
            return String(
                (0..<Int.random(in: lengths, using: &generator)).map { _ in
                    Bool.random(using: &generator) ? common.randomElement(using: &generator)! : alphabet.randomElement(using: &generator)!
                })
        }
        var valid = 0
        for _ in 0..<20_000 {
            let labels = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                Int.random(in: 0...20, using: &generator) == 0 ? piece(labelAlphabet, 60...66) : piece(labelAlphabet, 0...6)
            }
            let local = Int.random(in: 0...20, using: &generator) == 0 ? piece(localAlphabet, 62...66) : piece(localAlphabet, 0...8)
            let raw = (Bool.random(using: &generator) ? " " : "") + local + "@" + labels.joined(separator: ".")
            let expected = EmailAddress.canonical("\u{00A0}" + raw)
            #expect(EmailAddress.canonical(raw) == expected, "\(raw.debugDescription)")
            if expected != nil { valid += 1 }
        }
        #expect(valid > 100)
    }

    @Test func lookAlikeScriptsStayDistinct() {
        #expect(EmailAddress.canonical("аdmin@example.com") != EmailAddress.canonical("admin@example.com"))
    }
}

@Suite struct RefreshTokenTests {
    let codec = RefreshTokenCodec(serverSecret: Array(repeating: 7, count: 32))
    let salt = Array(repeating: UInt8(3), count: 32)

    @Test func roundTripAndTamper() throws {
        let id = UUID()
        let token = codec.encode(sessionID: id, counter: 41, salt: salt)
        let decoded = try #require(codec.authenticate(token, salt: salt))
        #expect(decoded.sessionID == id)
        #expect(decoded.counter == 41)
        #expect(codec.authenticate(token, salt: Array(repeating: 4, count: 32)) == nil)
        var bytes = try #require(Base64URL.decode(token))
        bytes[20] ^= 1
        #expect(codec.authenticate(Base64URL.encode(bytes), salt: salt) == nil)
        let otherServer = RefreshTokenCodec(serverSecret: Array(repeating: 8, count: 32))
        #expect(otherServer.authenticate(token, salt: salt) == nil)
    }
}

@Suite struct PasswordTests {
    /// The decoy is a hash at the current cost that parses like any other and matches nothing.
    @Test func theScryptDecoyIsACurrentHashThatNothingMatches() async throws {
        let pool = InlineWorkPool()
        let hasher = ScryptPasswordHasher(logN: 10, pool: pool)
        let decoy = try await hasher.decoyHash()
        #expect(decoy.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(decoy.split(separator: "$").count == 4)
        #expect(!hasher.needsRehash(decoy))
        #expect(try await hasher.decoyHash() != decoy)
        for password in ["", "correct horse battery staple", String(decoy.suffix(20))] {
            #expect(try await hasher.verify(password, against: decoy) == false)
        }
    }

    @Test func scryptHashesAreSaltedPHCStringsAndVerify() async throws {
        let pool = InlineWorkPool()
        let hasher = ScryptPasswordHasher(logN: 10, pool: pool)
        let a = try await hasher.hash("correct horse battery staple")
        let b = try await hasher.hash("correct horse battery staple")
        #expect(a != b)
        #expect(a.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(try await hasher.verify("correct horse battery staple", against: a))
        #expect(try await !hasher.verify("correct horse battery stapl", against: a))
        // NFC and NFD spellings of é are one password.
        let accented = try await hasher.hash("caf\u{E9} au lait s'il vous plait")
        #expect(try await hasher.verify("cafe\u{301} au lait s'il vous plait", against: accented))
        #expect(try await !hasher.verify("cafe au lait s'il vous plait", against: accented))
        // Stronger settings ask for a rehash.
        #expect(ScryptPasswordHasher(logN: 11, pool: pool).needsRehash(a))
        #expect(try await !hasher.verify("x", against: "garbage"))
        // Without a bcrypt verifier (the app injects one), GoTrue's hashes match nothing.
        #expect(try await !hasher.verify("U*U", against: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
    }

    @Test func policyRefusesShortCommonAndHugePasswords() {
        let policy = PasswordPolicy(settings: PasswordSettings(), blocklist: PasswordPolicy.bundledBlocklist())
        #expect(policy.check("fourteen chars")?.weakPasswordReasons == [.length])
        #expect(policy.check("éééééééééééééééé") == nil)
        #expect(policy.check("password12345678")?.weakPasswordReasons == [.pwned])
        #expect(policy.check("!!qwertyuiop2024")?.weakPasswordReasons == [.pwned])
        #expect(policy.check("aaaaaaaaaaaaaaaaaaaa") == nil)  // no composition rules (NIST)
        #expect(policy.check("my password12345678 is long") == nil)
        #expect(policy.check(String(repeating: "x", count: 2000))?.weakPasswordReasons == [.length])
    }
}

@Suite struct OneTimeSecretTests {
    @Test func codesAreUniformDigitsAndHashedPerUser() {
        let codes = (0..<2000).map { _ in SystemRandomSource().digits(6) }
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        #expect(Set(codes).count > 1900)
        let a = UUID()
        let b = UUID()
        #expect(OneTimeSecrets.codeHash("123456", userID: a) != OneTimeSecrets.codeHash("123456", userID: b))
        #expect(OneTimeSecrets.codeMatches("123456", userID: a, storedHash: OneTimeSecrets.codeHash("123456", userID: a)))
        #expect(!OneTimeSecrets.codeMatches("123456", userID: b, storedHash: OneTimeSecrets.codeHash("123456", userID: a)))
    }
}
