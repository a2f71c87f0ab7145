import Foundation
import LatchkeyCore
import Testing

@Suite struct AuthenticationMethodJSONTests {
    static func foundation(_ text: String) -> [AuthenticationMethod]? {
        try? JSONDecoder().decode([AuthenticationMethod].self, from: Data(text.utf8))
    }

    @Test func listsTheStoreWroteReadBack() throws {
        let methods = ["password", "otp", "magiclink", "totp", "mfa/phone", "mfa/recovery", "token_refresh", "é \"quoted\" \\ \u{1}"]
        let encoder = JSONEncoder()
        for _ in 0..<2_000 {
            let list = (0..<Int.random(in: 0...4)).map { _ in
                AuthenticationMethod(
                    method: methods.randomElement()!, timestamp: Int.random(in: -9_007_199_254_740_992...9_007_199_254_740_992))
            }
            let text = String(decoding: try encoder.encode(list), as: UTF8.self)
            #expect(AuthenticationMethod.list(fromJSON: text) == list, "\(text)")
        }
    }

    /// What is not what the store writes gets `JSONDecoder`'s answer: other shapes, numbers that
    /// are not whole or not exact in a double, repeated and extra keys, broken text.
    @Test(arguments: [
        "", "[]", " [ ] ", "{}", "null", "[null]", "[{}]", #"[{"method":"otp"}]"#, #"[{"timestamp":1}]"#,
        #"[{"method":1,"timestamp":1}]"#, #"[{"method":"otp","timestamp":"1"}]"#, #"[{"method":"otp","timestamp":1.5}]"#,
        #"[{"method":"otp","timestamp":1.0}]"#, #"[{"method":"otp","timestamp":1e3}]"#, #"[{"method":"otp","timestamp":-0}]"#,
        #"[{"method":"otp","timestamp":9007199254740993}]"#, #"[{"method":"otp","timestamp":-9007199254740993}]"#,
        #"[{"method":"otp","timestamp":92233720368547758070}]"#, #"[{"method":"otp","timestamp":1e400}]"#,
        #"[{"method":"otp","timestamp":1,"method":"totp"}]"#, #"[{"method":"otp","timestamp":1,"extra":[1,{}]}]"#,
        #"[{"method":"mfa\/totp","timestamp":1}]"#, #"[{"method":"\ud800","timestamp":1}]"#, #"[{"method":"otp","timestamp":01}]"#,
        #"[{"method":"otp","timestamp":1}"#, #"[{"method":"otp","timestamp":1}] x"#, #"[{"method":"otp","timestamp":1},]"#,
        #"[{"method":"otp","timestamp":1},{"method":"totp","timestamp":true}]"#, #"[[{"method":"otp","timestamp":1}]]"#,
    ])
    func otherTextIsReadAsJSONDecoderReadsIt(text: String) {
        #expect(AuthenticationMethod.list(fromJSON: text) == Self.foundation(text))
    }
}
