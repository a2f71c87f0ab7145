import Foundation
import Testing

@testable import LatchkeyCore

/// RFC 6238's and RFC 4648's own test vectors.
@Suite struct TOTPTests {
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test(arguments: [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfc6238SHA1Vectors(time: Int, code: String) {
        let totp = TOTP(secret: Self.rfcSecret, digits: 8)
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        #expect(totp.code(step: totp.step(at: date)) == code)
        #expect(totp.matchingStep(code, at: date) == totp.step(at: date))
    }

    @Test func aCodeMatchesOneStepEitherSideAndNoFurther() {
        let totp = TOTP(secret: Self.rfcSecret)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let step = totp.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now) == step + 1)
        #expect(totp.matchingStep(totp.code(step: step - 2), at: now) == nil)
        #expect(totp.matchingStep("12345", at: now) == nil)
        #expect(totp.matchingStep("abcdef", at: now) == nil)
    }

    @Test func theURICarriesTheSecretIssuerAndAccount() {
        let uri = TOTP(secret: Self.rfcSecret).uri(issuer: "Acme Inc", account: "ada+mfa@example.com")
        #expect(
            uri
                == "otpauth://totp/Acme%20Inc:ada%2Bmfa@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme%20Inc&algorithm=SHA1&digits=6&period=30"
        )
    }

    @Test(arguments: [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI"),
    ])
    func rfc4648Base32Vectors(plain: String, encoded: String) {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        #expect(Base32.decode(encoded.lowercased() + "===") == Array(plain.utf8))
    }

    @Test func base32RefusesOtherCharacters() {
        #expect(Base32.decode("MZXW1") == nil)
    }
}
