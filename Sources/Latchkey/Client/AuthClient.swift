import Foundation

/// The Latchkey client: sign-up and sign-in by password or emailed code, the session and its
/// refresh, and the user. Speaks the Supabase Auth wire protocol, so it also works against a
/// Supabase Auth server.
///
/// ```swift
/// let auth = AuthClient(url: URL(string: "https://auth.example.com")!)
/// let state = try await auth.signInWithEmailCode(email: "ada@example.com")
/// let session = try await state.submit(code: "123456")
/// ```
///
/// The session is restored from storage when the client is created; ``waitUntilReady()`` waits
/// for that, and every call waits for it too.
public actor AuthClient {
    /// How a client is set up.
    public struct Configuration: Sendable {
        /// The auth server, e.g. `https://auth.example.com` (or a Supabase project's `/auth/v1`).
        public var url: URL
        /// Headers sent with every request (for Supabase: `apikey`).
        public var headers: [String: String]
        /// Where the session is kept between launches.
        public var storage: any SessionStorage
        /// The key the session is stored under.
        public var storageKey: String
        /// How requests are sent.
        public var transport: any HTTPTransport
        /// Refresh the access token in the background before it expires.
        public var autoRefresh: Bool
        /// Refresh when fewer than this many seconds of the access token remain.
        public var refreshMargin: TimeInterval
        /// The default `redirect_to` for emailed links (your app's deep link).
        public var redirectURL: URL?
        /// How links bring the user back: ``FlowType/pkce`` (the default) or implicit.
        public var flowType: FlowType
        /// Where this device's device key is kept; defaults to ``defaultDeviceKeyStore(storage:)``.
        public var deviceKeyStore: any DeviceKeyStore
        /// The first wait before a failed restore is tried again (doubling up to 60 s); tests
        /// lengthen it to show what else wakes the retry.
        var restoreRetryDelay: Duration = .seconds(1)

        /// Creates a configuration; `storage` defaults to ``defaultStorage``.
        public init(
            url: URL, headers: [String: String] = [:], storage: (any SessionStorage)? = nil,
            storageKey: String = "latchkey.session", transport: any HTTPTransport = URLSessionTransport(),
            autoRefresh: Bool = true, refreshMargin: TimeInterval = 60, redirectURL: URL? = nil, flowType: FlowType = .pkce,
            deviceKeyStore: (any DeviceKeyStore)? = nil
        ) {
            self.flowType = flowType
            self.deviceKeyStore = deviceKeyStore ?? Self.defaultDeviceKeyStore(storage: storage ?? Self.defaultStorage)
            self.url = url
            self.headers = headers
            self.storage = storage ?? Self.defaultStorage
            self.storageKey = storageKey
            self.transport = transport
            self.autoRefresh = autoRefresh
            self.refreshMargin = refreshMargin
            self.redirectURL = redirectURL
        }

        /// The Secure Enclave behind biometrics where there is one; elsewhere the keys are kept
        /// in `storage`.
        public static func defaultDeviceKeyStore(storage: any SessionStorage) -> any DeviceKeyStore {
            #if canImport(CryptoKit) && canImport(LocalAuthentication) && canImport(Security) && !os(tvOS) && !os(watchOS)
                if SecureEnclaveDeviceKeyStore.isAvailable { return SecureEnclaveDeviceKeyStore() }
            #endif
            return SoftwareDeviceKeyStore(storage: storage)
        }

        /// The keychain on Apple platforms, a private file elsewhere.
        public static var defaultStorage: any SessionStorage {
            #if canImport(Security)
                KeychainSessionStorage()
            #else
                FileSessionStorage()
            #endif
        }
    }

    enum Restore {
        case pending
        case restored
        case unavailable(LatchkeyError)
    }

    /// How this client was set up.
    public let configuration: Configuration
    let api: APIClient
    var stored: Session?
    var restore: Restore = .pending
    var restoreTask: Task<Void, Never>?
    /// Tries the restore again while the stored session cannot be read.
    var restoreRetryTask: Task<Void, Never>?
    /// What wakes the retry early (see ``scheduleRestoreRetry()``).
    var wakeObservers: [any NSObjectProtocol] = []
    var refreshTask: Task<Session, any Error>?
    /// The returning-user chain under way: a second call waits for it (one prompt, one code).
    var returningUserTask: Task<ReturningUserSignIn, any Error>?
    /// The last change to the kept PKCE verifiers; the next waits for it.
    var verifierUpdate: Task<Void, Never>?
    var autoRefreshTask: Task<Void, Never>?
    var listeners: [UUID: AsyncStream<AuthStateChange>.Continuation] = [:]
    var greeted: Set<UUID> = []

    /// Creates a client and starts restoring the stored session in the background.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.api = APIClient(baseURL: configuration.url, headers: configuration.headers, transport: configuration.transport)
        Task { await self.waitUntilReady() }
    }

    /// A client for `url` with the default storage and transport.
    public init(url: URL, storage: (any SessionStorage)? = nil) {
        self.init(configuration: Configuration(url: url, storage: storage))
    }

    /// The session as last stored; it may have expired (``session()`` refreshes it).
    public var currentSession: Session? { stored }

    /// The signed-in user as last seen.
    public var currentUser: User? { stored?.user }

    /// Waits until the stored session has been restored (or found unreadable for now).
    public func waitUntilReady() async {
        if case .restored = restore { return }
        if let restoreTask { return await restoreTask.value }
        let task = Task { await self.restoreFromStorage() }
        restoreTask = task
        await task.value
        restoreTask = nil
    }

    func restoreFromStorage() async {
        do {
            let data = try await configuration.storage.load(key: configuration.storageKey)
            stored = data.flatMap { try? WireJSON.makeDecoder().decode(Session.self, from: $0) }
            restore = .restored
            for (id, continuation) in listeners where !greeted.contains(id) {
                continuation.yield(AuthStateChange(event: .initialSession, session: stored))
                greeted.insert(id)
            }
            if stored != nil { startAutoRefresh() }
        } catch let error as LatchkeyError {
            restore = .unavailable(error)
            scheduleRestoreRetry()
        } catch {
            restore = .unavailable(LatchkeyError(code: .storageUnavailable, message: "\(error)"))
            scheduleRestoreRetry()
        }
    }

    /// While the stored session cannot be read (a keychain still locked after a background
    /// launch, a storage error), tries again after 1, 2, 4 … up to 60 seconds, and at once when
    /// the system says the keychain opened (`UIApplication.protectedDataDidBecomeAvailableNotification`)
    /// or the app came to the front (`UIApplication.didBecomeActiveNotification`,
    /// `UIScene.didActivateNotification`, `NSApplication.didBecomeActiveNotification`), so that
    /// listeners (``AuthModel``) get their initial session as soon as it can be read, without the
    /// app calling the SDK. ``waitUntilReady()`` tries at once.
    func scheduleRestoreRetry() {
        guard restoreRetryTask == nil else { return }
        let first = configuration.restoreRetryDelay
        restoreRetryTask = Task { [weak self] in
            var delay = first
            while !Task.isCancelled {
                try? await Task.sleep(for: delay)
                guard let self, !Task.isCancelled else { return }
                await self.waitUntilReady()
                if await self.isRestored { break }
                delay = min(delay * 2, .seconds(60))
            }
            await self?.endRestoreRetry()
        }
        wakeObservers = Self.wakeNotifications.map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                Task { await self?.wakeRestore() }
            }
        }
    }

    /// The notifications after which a locked keychain may read, by their names (UIKit's and
    /// AppKit's constants are main-actor types' members; the names are what they hold).
    static let wakeNotifications: [Notification.Name] = [
        Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"),
        Notification.Name("UIApplicationDidBecomeActiveNotification"),
        Notification.Name("UISceneDidActivateNotification"),
        Notification.Name("NSApplicationDidBecomeActiveNotification"),
    ]

    /// Tries the restore now (the keychain may have opened); ends the retry when it worked.
    func wakeRestore() async {
        guard restoreRetryTask != nil else { return }
        await waitUntilReady()
        if isRestored {
            restoreRetryTask?.cancel()
            endRestoreRetry()
        }
    }

    var isRestored: Bool {
        if case .restored = restore { return true }
        return false
    }

    /// How many observers wait to wake the retry (for tests).
    var wakeObserverCount: Int { wakeObservers.count }

    func endRestoreRetry() {
        restoreRetryTask = nil
        for observer in wakeObservers { NotificationCenter.default.removeObserver(observer) }
        wakeObservers = []
    }

    /// Throws `storage_unavailable` while the stored session cannot be read (try again later).
    func ready() async throws {
        await waitUntilReady()
        if case .unavailable(let error) = restore { throw error }
    }

    /// Every change of the auth state, starting with ``AuthEvent/initialSession`` once the stored
    /// session is restored.
    public nonisolated var authStateChanges: AsyncStream<AuthStateChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthStateChange.self)
        let id = UUID()
        continuation.onTermination = { _ in Task { await self.removeListener(id) } }
        Task { await self.addListener(id, continuation) }
        return stream
    }

    func addListener(_ id: UUID, _ continuation: AsyncStream<AuthStateChange>.Continuation) async {
        listeners[id] = continuation
        await waitUntilReady()
        if case .restored = restore, !greeted.contains(id), listeners[id] != nil {
            continuation.yield(AuthStateChange(event: .initialSession, session: stored))
            greeted.insert(id)
        }
    }

    func removeListener(_ id: UUID) {
        listeners[id] = nil
        greeted.remove(id)
    }

    func emit(_ event: AuthEvent, error: LatchkeyError? = nil) {
        for (id, continuation) in listeners where greeted.contains(id) {
            continuation.yield(AuthStateChange(event: event, session: stored, error: error))
        }
    }

    /// Stores a session and tells listeners. A storage failure keeps the session in memory.
    func setSession(_ session: Session, event: AuthEvent) async {
        var session = session
        // Recovery codes are shown once, by the call that got them: never kept with the session.
        session.recoveryCodes = nil
        stored = session
        if let data = try? WireJSON.makeEncoder().encode(session) {
            try? await configuration.storage.save(data, key: configuration.storageKey)
        }
        if [.signedIn, .userUpdated, .mfaChallengeVerified, .passwordRecovery].contains(event) { await rememberUser(session) }
        emit(event)
        startAutoRefresh()
    }

    /// Forgets the session here and tells listeners.
    func clearSession() async {
        let hadSession = stored != nil
        stored = nil
        autoRefreshTask?.cancel()
        autoRefreshTask = nil
        try? await configuration.storage.remove(key: configuration.storageKey)
        if hadSession { emit(.signedOut) }
    }

    var now: Date { Date() }
}
