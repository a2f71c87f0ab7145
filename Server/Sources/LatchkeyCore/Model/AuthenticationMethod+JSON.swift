import Foundation
import LatchkeyAPI

extension AuthenticationMethod {
    /// The methods in a session's `amr` column, as `JSONDecoder` reads `[AuthenticationMethod]`
    /// from it, or `nil` where it fails. What the store writes (objects of a string `method` and a
    /// whole-number `timestamp`) is read by ``JSONText``; anything else is left to `JSONDecoder`.
    /// Every signed-in request reads its session's list, and `JSONDecoder` was most of that read.
    public static func list(fromJSON text: String) -> [AuthenticationMethod]? {
        guard case .array(let items)? = JSONText.decode(text) else { return foundationList(text) }
        var list: [AuthenticationMethod] = []
        list.reserveCapacity(items.count)
        for item in items {
            // A number from 2^53 up may not be the integer its text says: JSONDecoder reads the text.
            guard case .object(let members) = item, case .string(let method)? = members["method"],
                case .number(let seconds)? = members["timestamp"], abs(seconds) < 9_007_199_254_740_992,
                let timestamp = Int(exactly: seconds)
            else { return foundationList(text) }
            list.append(AuthenticationMethod(method: method, timestamp: timestamp))
        }
        return list
    }

    private static func foundationList(_ text: String) -> [AuthenticationMethod]? {
        try? JSONDecoder().decode([AuthenticationMethod].self, from: Data(text.utf8))
    }
}
