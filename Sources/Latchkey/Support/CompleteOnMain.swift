/// Runs `work` and hands its result to `completion` on the main actor: what every
/// completion-handler form of the SDK does.
func completeOnMain<T: Sendable>(
    _ completion: @escaping @MainActor @Sendable (Result<T, any Error>) -> Void, _ work: @escaping @Sendable () async throws -> T
) {
    Task { @MainActor in
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        completion(result)
    }
}
