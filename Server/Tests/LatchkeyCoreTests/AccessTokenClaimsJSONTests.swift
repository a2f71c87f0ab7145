import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The access-token reader (``AccessTokenClaims/decode(json:)``) gives exactly what `JSONDecoder`
/// gives, and leaves to it what it does not take.
@Suite struct AccessTokenClaimsJSONTests {
    static func jsonDecoder(_ data: Data) -> AccessTokenClaims? {
        try? JSONDecoder().decode(AccessTokenClaims.self, from: data)
    }

    static func fast(_ data: Data) -> AccessTokenClaims? {
        try? AccessTokenClaims.decode(json: data)
    }

    @Test func tokensThisServerSignsReadAsJSONDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        for index in 0..<1_000 {
            var claims = AccessTokenClaims(
                iss: "https://auth.example.com", sub: UUID().uuidString.lowercased(), aud: index % 3 == 0 ? nil : "authenticated",
                exp: 1_800_000_000 + index, iat: 1_799_990_000, email: index % 2 == 0 ? "a\(index)@example.com" : "",
                phone: "", appMetadata: JSONTextTests.randomObject(depth: 0, &generator),
                userMetadata: index % 5 == 0 ? nil : JSONTextTests.randomObject(depth: 0, &generator), role: "authenticated",
                aal: index % 2 == 0 ? "aal1" : "aal2",
                amr: [AuthenticationMethod(method: "otp", timestamp: 1_799_990_000 + index)], sessionID: UUID().uuidString,
                isAnonymous: index % 4 == 0 ? nil : index % 3 == 0)
            claims.nbf = index % 7 == 0 ? 1_799_990_000 : nil
            let data = try encoder.encode(claims)
            let expected = try #require(Self.jsonDecoder(data))
            #expect(expected == claims)
            #expect(Self.fast(data) == expected, "\(String(decoding: data, as: UTF8.self))")
            // The fast reader takes them itself, without `JSONDecoder`.
            let object = data.withUnsafeBytes { JSONText.decodeObject($0.bindMemory(to: UInt8.self)) }
            #expect(object.flatMap(AccessTokenClaims.init(jsonObject:)) == expected)
        }
    }

    @Test(arguments: [
        #"{}"#, #"{"sub":null,"aud":null,"amr":null}"#, #"{"aud":["a","b"]}"#, #"{"aud":[]}"#, #"{"aud":[1]}"#, #"{"aud":1}"#,
        #"{"sub":1}"#, #"{"exp":"1"}"#, #"{"exp":1.9}"#, #"{"exp":-1.9}"#, #"{"exp":1e300}"#, #"{"iat":true}"#,
        #"{"app_metadata":[]}"#, #"{"user_metadata":"x"}"#, #"{"amr":[{"method":"otp","timestamp":1.5}]}"#,
        #"{"amr":[{"method":"otp"}]}"#, #"{"amr":{"method":"otp"}}"#, #"{"amr":[{"method":"otp","timestamp":1,"x":2}]}"#,
        #"{"is_anonymous":1}"#, #"{"is_anonymous":false}"#, #"{"role":"a","role":"b"}"#, #"{"session_id":"x","unknown":[{}]}"#,
        #"[]"#, #"{"a":"#, "",
    ])
    func oddPayloadsReadAsJSONDecoderReadsThem(text: String) {
        #expect(Self.fast(Data(text.utf8)) == Self.jsonDecoder(Data(text.utf8)))
    }
}
