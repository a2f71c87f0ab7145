import Foundation

/// `application/x-www-form-urlencoded`, as providers and browsers read it: RFC 3986's unreserved
/// characters as they are, everything else percent-encoded.
public enum FormEncoding {
    /// One value, encoded.
    public static func component(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `name=value` pairs joined with `&`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(component($0.0))=\(component($0.1))" }.joined(separator: "&")
    }
}
