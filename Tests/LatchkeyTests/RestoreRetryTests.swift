import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #36 defect 3 (its portable part): a restore that fails (a keychain still locked after a
/// background launch) is tried again on its own, so listeners get their initial session without
/// the app having to call the SDK.
@Suite struct RestoreRetryTests {
    /// Storage that cannot be read for its first `failures` loads.
    actor LockedAtFirst: SessionStorage {
        var failures: Int
        var loads = 0
        let inner = InMemorySessionStorage()
        init(failures: Int) { self.failures = failures }
        func load(key: String) async throws -> Data? {
            loads += 1
            if failures > 0 {
                failures -= 1
                throw LatchkeyError(code: .storageUnavailable, message: "the keychain is locked")
            }
            return await inner.load(key: key)
        }
        func save(_ data: Data, key: String) async throws { await inner.save(data, key: key) }
        func remove(key: String) async throws { await inner.remove(key: key) }
    }

    @Test func aFailedRestoreIsTriedAgainUntilTheSessionCanBeRead() async throws {
        let storage = LockedAtFirst(failures: 2)
        try await storage.save(try WireJSON.makeEncoder().encode(try Fixtures.session()), key: "latchkey.session")
        let auth = AuthClient(
            configuration: .init(url: Fixtures.url, storage: storage, transport: MockTransport(), autoRefresh: false))
        // No call into the SDK: the first change arrives once the storage opens (after 1 s, then
        // 2 s). Without the retry it never would: the watchdog ends the wait (nil) instead of a hang.
        let listening = Task { await auth.authStateChanges.first { _ in true } }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(15))
            listening.cancel()
        }
        let first = await listening.value
        watchdog.cancel()
        #expect(first?.event == .initialSession)
        #expect(first?.session?.accessToken == "access-1")
        #expect(await storage.loads == 3)
        #expect(await auth.currentSession?.accessToken == "access-1")
    }

    /// The Apple part: the keychain opening (`UIApplication.protectedDataDidBecomeAvailableNotification`)
    /// or the app coming to the front wakes the retry at once; here the timer would wait an hour.
    @Test(arguments: ["UIApplicationProtectedDataDidBecomeAvailable", "UISceneDidActivateNotification"])
    func theKeychainOpeningOrTheAppActivatingWakesTheRetry(notification: String) async throws {
        let storage = LockedAtFirst(failures: 1)
        try await storage.save(try WireJSON.makeEncoder().encode(try Fixtures.session()), key: "latchkey.session")
        var configuration = AuthClient.Configuration(url: Fixtures.url, storage: storage, transport: MockTransport(), autoRefresh: false)
        configuration.restoreRetryDelay = .seconds(3600)
        let auth = AuthClient(configuration: configuration)
        let listening = Task { await auth.authStateChanges.first { _ in true } }
        // The first read failed and the retry waits (an hour).
        while await auth.restoreRetryTask == nil { await Task.yield() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(15))
            listening.cancel()
        }
        NotificationCenter.default.post(name: Notification.Name(notification), object: nil)
        let first = await listening.value
        watchdog.cancel()
        #expect(first?.event == .initialSession && first?.session?.accessToken == "access-1")
        #expect(await storage.loads == 2)
        guard first != nil else { return }
        // The retry is over, and with it the observers.
        while await auth.restoreRetryTask != nil { await Task.yield() }
        #expect(await auth.wakeObserverCount == 0)
    }
}
