/// Any JSON value, for the free-form parts of the wire protocol such as `user_metadata`.
///
/// ```swift
/// let data: JSONValue = ["name": "Ada", "age": 36]
/// ```
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as a `Double`; whole numbers under 2^53 in magnitude are written without a fraction.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// The items inside an `.array`, or `nil` for any other case.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The dictionary, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The string inside a `.string`, or `nil` for any other case.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number inside a `.number`, or `nil` for any other case.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value inside a `.bool`, or `nil` for any other case.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates `.null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// Creates a ``bool(_:)`` from a Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates a ``number(_:)`` from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// Creates a ``number(_:)`` from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// Creates a ``string(_:)`` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an ``array(_:)`` from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates an ``object(_:)`` from a dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
