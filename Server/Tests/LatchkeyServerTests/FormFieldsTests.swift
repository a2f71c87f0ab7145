import Testing

@testable import LatchkeyServer

/// Form bodies and provider callbacks are read the way a browser writes them, and text that is
/// not valid percent-encoding is left out instead of stopping the process (Foundation's
/// `URLComponents` traps on it).
@Suite struct FormFieldsTests {
    @Test(arguments: [
        ("state=abc&code=x%2By+z", ["state": "abc", "code": "x+y z"]),
        ("a=1&a=2", ["a": "1"]),
        ("flag&empty=", ["flag": "", "empty": ""]),
        ("state=%zz&code=a%2", [:]),
        ("code=%00&state=%FF%FE", ["code": "\u{0}"]),
        ("=v&&k=%E2%9C%93", ["": "v", "k": "✓"]),
        ("", [:]),
    ])
    func hostileFormsAreReadWithoutTrapping(_ text: String, _ expected: [String: String]) {
        #expect(FormBody.fields(text) == expected)
    }
}
