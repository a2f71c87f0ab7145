import Foundation

extension KeyedEncodingContainer {
    /// Encodes an id as GoTrue writes them: lower case.
    mutating func encodeLowercased(_ id: UUID, forKey key: Key) throws {
        try encode(id.uuidString.lowercased(), forKey: key)
    }
}
