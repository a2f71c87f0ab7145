import ServiceLifecycle

/// The loop of every periodic service: waits `interval`, runs `body`, and again, until the
/// service group shuts down gracefully (a wait in progress ends at once).
func repeatUntilShutdown(every interval: Duration, _ body: () async -> Void) async {
    while !Task.isShuttingDownGracefully {
        do {
            try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        } catch {
            return
        }
        await body()
    }
}
