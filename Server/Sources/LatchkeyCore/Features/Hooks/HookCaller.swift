import LatchkeyAPI

/// Calls an operator's hook: the one side effect of ``Hooks``. The server's is `HTTPHookCaller`
/// (a signed POST, as Standard Webhooks); ``ScriptedHookCaller`` answers from a closure in tests.
public protocol HookCaller: Sendable {
    /// Sends `payload` to hook `name` and returns the JSON object it answered (`[:]` for no
    /// body). Throws an ``AuthError`` in GoTrue's terms when the hook could not be reached in
    /// time, answered with an unexpected status, or answered something that is not a JSON object.
    func call(_ name: HookName, payload: [String: JSONValue]) async throws -> [String: JSONValue]
}

/// A ``HookCaller`` that answers from a closure: for tests of what the use cases do with answers.
public struct ScriptedHookCaller: HookCaller {
    let answer: @Sendable (HookName, [String: JSONValue]) async throws -> [String: JSONValue]

    public init(_ answer: @escaping @Sendable (HookName, [String: JSONValue]) async throws -> [String: JSONValue]) {
        self.answer = answer
    }

    public func call(_ name: HookName, payload: [String: JSONValue]) async throws -> [String: JSONValue] {
        try await answer(name, payload)
    }
}
