import Foundation
import LatchkeyAPI
import LatchkeyCore
import Testing

/// The store's JSON writer gives text that `JSONDecoder` reads back as the same values.
@Suite struct JSONTextTests {
    static let awkward = [
        "", "plain", "quote \" and backslash \\", "slash / and tab \t", "new\nline\r", "\u{0}\u{1}\u{1F}\u{7F}",
        "émoji 🦊 and ｆｕｌｌ", "\u{2028}\u{2029}", "{\"not\":\"an object\"}",
    ]
    static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.5, -2.75, 1e-300, 1e300, 9_007_199_254_740_991, 9_007_199_254_740_992, -9_007_199_254_740_994,
        123_456_789.125, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1 + 0.2,
    ]

    static func randomValue(depth: Int, _ generator: inout some RandomNumberGenerator) -> JSONValue {
        switch Int.random(in: 0...(depth > 2 ? 3 : 5), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(numbers.randomElement(using: &generator)!)
        case 3: return .string(awkward.randomElement(using: &generator)!)
        case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, &generator) })
        default: return .object(randomObject(depth: depth + 1, &generator))
        }
    }

    static func randomObject(depth: Int, _ generator: inout some RandomNumberGenerator) -> [String: JSONValue] {
        Dictionary(
            (0..<Int.random(in: 0...5, using: &generator)).map { index in
                (awkward.randomElement(using: &generator)! + "\(index)", randomValue(depth: depth, &generator))
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test func objectsReadBackAsTheSameValues() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let object = Self.randomObject(depth: 0, &generator)
            let text = try #require(JSONText.encode(object))
            let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
            #expect(decoded == object, "\(text)")
        }
    }

    @Test func stringArraysReadBackAsTheSameStrings() throws {
        let text = JSONText.encode(Self.awkward)
        #expect(try JSONDecoder().decode([String].self, from: Data(text.utf8)) == Self.awkward)
        #expect(JSONText.encode([]) == "[]")
    }

    @Test func aNumberJSONCannotWriteGivesNothing() {
        #expect(JSONText.encode(["a": .number(.infinity)]) == nil)
        #expect(JSONText.encode(["a": .array([.number(.nan)])]) == nil)
        #expect(JSONText.encode([:]) == "{}")
    }

    /// The one writer's two styles: compact writes anything finite; wire writes what the wire
    /// encoder would write the same way (sorted keys, whole numbers, no control character, ASCII
    /// keys) and refuses the rest, so that the caller leaves it to the encoder.
    @Test func theWireStyleRefusesWhatTheEncoderWouldWriteOtherwise() {
        func wire(_ value: JSONValue) -> String? {
            var writer = JSONWriter(style: .wire)
            return writer.value(value) ? String(decoding: writer.bytes, as: UTF8.self) : nil
        }
        #expect(
            wire(.object(["b": .number(2), "a": .array([.string("x/y \"q\""), .null, .bool(true)])]))
                == #"{"a":["x/y \"q\"",null,true],"b":2}"#)
        for refused: JSONValue in [
            .string("new\nline"), .string("del\u{7F}"), .number(0.5), .number(.infinity), .object(["é": .null]),
            .array([.object(["k": .string("\u{1}")])]),
        ] {
            #expect(wire(refused) == nil, "\(refused)")
        }
        var compact = JSONWriter(style: .compact)
        let wrote = compact.value(.array([.string("new\nline\u{1}"), .number(0.5)]))
        #expect(wrote)
        #expect(String(decoding: compact.bytes, as: UTF8.self) == #"["new\nline\u0001",0.5]"#)
    }

    /// What `JSONDecoder` reads from `text`, if it reads an object.
    static func foundation(_ text: String) -> [String: JSONValue]? {
        try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }

    @Test func theReaderReadsWhatEitherWriterWrote() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        for _ in 0..<2_000 {
            let object = Self.randomObject(depth: 0, &generator)
            let ours = try #require(JSONText.encode(object))
            #expect(JSONText.decodeObject(ours) == object, "\(ours)")
            // Foundation's text escapes slashes and control characters as \u00XX.
            let theirs = String(decoding: try encoder.encode(object), as: UTF8.self)
            #expect(JSONText.decodeObject(theirs) == object, "\(theirs)")
        }
    }

    @Test(arguments: [
        #"{"a":"\ud83e\udd8a \u00e9\u0000\b\f\/"}"#, #"  { "a" : [ 1 , -0.5e-3 , 2E+2, true,false ,null ] , "b":{} }  "#,
        #"{"a":1,"a":2}"#, #"{"big":123456789012345678901234567890}"#,
    ])
    func escapesNumbersAndSpacingReadAsFoundationReadsThem(text: String) {
        #expect(JSONText.decodeObject(text) == Self.foundation(text))
    }

    @Test(arguments: [
        "", " ", "[]", "1", #""a""#, "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{,}"#, #"{"a":01}"#, #"{"a":1.}"#,
        #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":-}"#, #"{"a":+1}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\x"}"#,
        #"{"a":"\u12"}"#, "{\"a\":\"\n\"}", #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":1} x"#, #"{"a":"unterminated}"#,
        #"{"a":1e999}"#, #"{"a":NaN}"#,
    ])
    func malformedTextIsNotAnObject(text: String) {
        #expect(JSONText.decodeObject(text) == nil)
    }

    /// Random and truncated bytes never crash the reader, and whatever it accepts, `JSONDecoder`
    /// reads as the same object; nesting past 64 levels is left to `JSONDecoder`.
    @Test func hostileTextIsRefusedOrReadAsFoundationReadsIt() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]:,"\u0123456789abcdefE+-.tnrl "#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            if let object = JSONText.decodeObject(text) { #expect(object == Self.foundation(text), "\(text.debugDescription)") }
        }
        let valid = try #require(JSONText.encode(Self.randomObject(depth: 0, &generator)))
        for end in valid.indices {
            let prefix = String(valid[..<end])
            if let object = JSONText.decodeObject(prefix) { #expect(object == Self.foundation(prefix)) }
        }
        let deep = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(JSONText.decodeObject(deep) == nil)
        #expect(JSONText.decodeObject(String(repeating: "[", count: 100_000)) == nil)
    }
}
