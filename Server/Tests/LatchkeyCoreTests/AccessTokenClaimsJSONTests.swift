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

    /// What the direct writer signs is what `JSONEncoder` would have signed: the same object, read
    /// back as the same claims, for every shape of claims a token may carry.
    @Test func tokensAreWrittenAsJSONEncoderWritesThem() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        for index in 0..<1_000 {
            func some<T>(_ value: T) -> T? { Bool.random(using: &generator) ? value : nil }
            let text = ["", "a/b", "quote \" \\", "tab\t\u{1}", "émoji 🦊", "\u{2028}"]
            var claims = AccessTokenClaims(
                iss: some(text.randomElement(using: &generator)!), sub: some(UUID().uuidString.lowercased()),
                aud: some("authenticated"), exp: some(1_800_000_000 + index), iat: some(-index),
                email: some(text.randomElement(using: &generator)!), phone: some(""),
                appMetadata: some(JSONTextTests.randomObject(depth: 0, &generator)),
                userMetadata: some(JSONTextTests.randomObject(depth: 0, &generator)), role: some("authenticated"),
                aal: some("aal2"), amr: some((0..<index % 3).map { AuthenticationMethod(method: "otp\($0)", timestamp: $0) }),
                sessionID: some(UUID().uuidString), isAnonymous: some(index % 2 == 0))
            claims.nbf = some(index)
            claims.clientID = some("client/\(index)")
            claims.scope = some("openid email")
            claims.resource = claims.aud == nil ? nil : some("https://mcp.example.com/")
            if index % 10 == 0 { claims.custom = JSONTextTests.randomObject(depth: 0, &generator) }
            let expected = try encoder.encode(claims)
            let written = try #require(claims.json().map { Data($0) })
            let object = try JSONSerialization.jsonObject(with: written) as? NSDictionary
            #expect(object == (try JSONSerialization.jsonObject(with: expected) as? NSDictionary))
            let read = try JSONDecoder().decode(AccessTokenClaims.self, from: written)
            #expect(read == (try JSONDecoder().decode(AccessTokenClaims.self, from: expected)))
            // And the direct reader reads what was signed as JSONDecoder does, client claims included.
            #expect(try AccessTokenClaims.decode(json: written) == read)
        }
        // A number JSON cannot write is left to JSONEncoder, which refuses it.
        var odd = AccessTokenClaims(sub: "x", appMetadata: ["n": .number(.infinity)])
        #expect(odd.json() == nil)
        odd.custom = ["n": .number(.nan)]
        #expect(odd.json() == nil)
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
