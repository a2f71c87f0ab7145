import Foundation
import Hummingbird

/// `application/x-www-form-urlencoded` as browsers and providers send it: a form body, or a
/// provider's callback query.
enum FormBody {
    /// The fields of a form body.
    static func fields(of request: Request, context: APIRequestContext) async throws -> [String: String] {
        fields(String(buffer: try await request.collectBody(context: context)))
    }

    /// The fields of `application/x-www-form-urlencoded` text (`+` is a space); the first of a
    /// repeated name wins. A field whose name or value is not valid percent-encoding is left out (Foundation's
    /// `URLComponents` stops the process on such text, so it is never given any).
    static func fields(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "", result[name] == nil else {
                continue
            }
            result[name] = value
        }
        return result
    }
}
