import Foundation
import LatchkeyAPI

/// Checks real responses against `openapi.json`: the status is documented for the operation, the
/// content type is one it lists, and the body satisfies its schema (`$ref`, `type`, `required`,
/// `properties`, `items`, `oneOf`/`anyOf`/`allOf`, `enum`, `const`, `format: uuid|date-time`).
struct OpenAPIValidator {
    let document: JSONValue

    init(_ data: Data) throws {
        document = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The problems with one response, empty when it conforms.
    func problems(method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        guard let operation = document.objectValue?["paths"]?.objectValue?[path]?.objectValue?[method.lowercased()]?.objectValue
        else { return ["\(method) \(path) is not documented"] }
        guard var response = operation["responses"]?.objectValue?[String(status)] else {
            return ["\(method) \(path) does not document status \(status)"]
        }
        response = resolve(response)
        guard let content = response.objectValue?["content"]?.objectValue else {
            return body.isEmpty || status == 303 || status == 404 ? [] : ["\(method) \(path) \(status) documents no body"]
        }
        let mediaType = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let media = content[mediaType]?.objectValue else {
            return ["\(method) \(path) \(status): content type \(mediaType) not documented"]
        }
        guard mediaType == "application/json", let schema = media["schema"] else { return [] }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            return ["\(method) \(path) \(status): body is not JSON"]
        }
        return validate(value, against: schema, at: "\(method) \(path) \(status) $")
    }

    func resolve(_ value: JSONValue) -> JSONValue {
        guard let reference = value.objectValue?["$ref"]?.stringValue, reference.hasPrefix("#/") else { return value }
        var current: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { current = current?.objectValue?[String(part)] }
        return current.map(resolve) ?? .null
    }

    func validate(_ value: JSONValue, against rawSchema: JSONValue, at location: String) -> [String] {
        let schema = resolve(rawSchema)
        guard let rules = schema.objectValue else { return [] }
        if let options = rules["oneOf"]?.arrayValue ?? rules["anyOf"]?.arrayValue {
            let matching = options.filter { validate(value, against: $0, at: location).isEmpty }
            if matching.isEmpty { return ["\(location): matches none of \(options.count) alternatives"] }
            if rules["oneOf"] != nil, matching.count > 1 { return ["\(location): matches \(matching.count) oneOf alternatives"] }
        }
        if let parts = rules["allOf"]?.arrayValue {
            let problems = parts.flatMap { validate(value, against: $0, at: location) }
            if !problems.isEmpty { return problems }
        }
        if let constant = rules["const"], constant != value { return ["\(location): should be \(constant)"] }
        if let allowed = rules["enum"]?.arrayValue, !allowed.contains(value) { return ["\(location): \(value) not in enum"] }
        if let type = rules["type"] {
            let types = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue].compactMap { $0 }
            if !types.contains(where: { Self.matches(value, type: $0) }) { return ["\(location): \(value) is not \(types)"] }
        }
        var problems: [String] = []
        if case .string(let text) = value, let format = rules["format"]?.stringValue {
            if format == "uuid", UUID(uuidString: text) == nil || text != text.lowercased() {
                problems.append("\(location): not a lower-case uuid")
            }
            if format == "date-time", WireJSON.parseDate(text) == nil { problems.append("\(location): not a date-time") }
        }
        if case .object(let object) = value {
            for key in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[key] == nil {
                problems.append("\(location).\(key): required but missing")
            }
            for (key, propertySchema) in rules["properties"]?.objectValue ?? [:] {
                if let property = object[key] { problems += validate(property, against: propertySchema, at: "\(location).\(key)") }
            }
        }
        if case .array(let items) = value, let itemSchema = rules["items"] {
            for (index, item) in items.enumerated() { problems += validate(item, against: itemSchema, at: "\(location)[\(index)]") }
        }
        return problems
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("number", .number): true
        case ("integer", .number(let number)): number.rounded() == number
        default: false
        }
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
