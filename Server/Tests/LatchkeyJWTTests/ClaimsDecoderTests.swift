import Foundation
import JWTKit
import Testing

@testable import LatchkeyJWT

/// A token's header is read before its signature is checked, so it is anyone's text: the direct
/// reader reads it as `JSONDecoder` reads it, or leaves it to `JSONDecoder`, which reads or refuses.
@Suite struct ClaimsDecoderTests {
    static let headers = [
        #"{"alg":"ES256","kid":"k1","typ":"JWT"}"#, #"{"alg":"HS256"}"#, "{}", #" { "alg" : "ES256" } "#,
        #"{"n":1,"d":1.5,"big":1e300,"neg":-3,"t":true,"f":false,"z":null}"#, #"{"kid":"\u00e9\n\"\\/"}"#,
        #"{"crit":["exp"],"jwk":{"kty":"EC"}}"#, #"{"a":{"b":{"c":[1,[2,{"d":null}]]}}}"#,
        String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40),
        String(repeating: "[", count: 5000), #"{"alg":"ES256""#, #"{"alg":"ES256"}x"#, #"{"alg":ES256}"#, "[]", "null",
        #""alg""#, "", #"{"alg":"ES256","alg":"HS256"}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":"\ud800"}"#, #"{"a":"\x"}"#,
        "{\"a\":\"\u{1}\"}", "{\"a\":\"\\u0000\"}",
    ]

    @Test func headersReadAsJSONDecoderReadsThem() {
        var inputs = Self.headers.map { Data($0.utf8) }
        inputs.append(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]))  // {"a":"<invalid UTF-8>"}
        for data in inputs {
            let direct = try? ClaimsDecoder().decode(JWTHeader.self, from: data)
            let foundation = try? JSONDecoder().decode(JWTHeader.self, from: data)
            #expect(direct?.fields == foundation?.fields, "\(String(decoding: data.prefix(60), as: UTF8.self))")
        }
        #expect(
            ClaimsDecoder.header(Data(#"{"alg":"ES256","n":2,"d":0.5}"#.utf8))?.fields == [
                "alg": .string("ES256"), "n": .int(2), "d": .decimal(0.5),
            ])
        // Nested values are JSONDecoder's, with JWTKit's depth limit.
        #expect(ClaimsDecoder.header(Data(#"{"jwk":{"kty":"EC"}}"#.utf8)) == nil)
    }
}
