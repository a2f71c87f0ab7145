import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore

/// The signing keys of each issuer, found through OpenID discovery and kept for ``ttl``.
///
/// A key id the cached set lacks fetches the set again (a provider rotated its keys), but never
/// sooner than ``refetchFloor`` after the last fetch, so tokens with made-up key ids cannot make
/// Latchkey hammer a provider. Concurrent fetches for one issuer are one fetch. When a refresh
/// fails, the keys fetched before are served until a fetch succeeds.
///
/// Where a provider accepts many issuers (every Entra tenant), forged tokens can name a new one
/// each time: the cache keeps at most ``maxIssuers`` (the least recently used go first), and
/// fetches for issuers it has never had are limited to ``newIssuersPerWindow`` per
/// ``refetchFloor``, so such tokens neither grow memory nor turn Latchkey into a fetcher.
public actor OpenIDKeyCache {
    struct Entry {
        var keys: [JWK]
        var fetchedAt: Date
    }

    let fetcher: any DocumentFetching
    let time: any TimeSource
    /// How long a fetched key set is used before it is fetched again
    /// (`GOTRUE_EXTERNAL_OIDC_PROVIDER_CACHE_TTL`).
    public let ttl: TimeInterval
    /// The shortest time between two fetches for one issuer.
    public let refetchFloor: TimeInterval
    /// The most issuers kept (keys and last attempts).
    public let maxIssuers: Int
    /// First fetches of issuers not in the cache allowed per ``refetchFloor``.
    public let newIssuersPerWindow: Int
    private var entries: [String: Entry] = [:]
    private var lastAttempt: [String: Date] = [:]
    private var lastUsed: [String: Date] = [:]
    private var inFlight: [String: Task<[JWK], any Error>] = [:]
    private var newFetches: [Date] = []

    public init(
        fetcher: any DocumentFetching, time: any TimeSource, ttl: TimeInterval = 3600, refetchFloor: TimeInterval = 30,
        maxIssuers: Int = 1024, newIssuersPerWindow: Int = 20
    ) {
        self.maxIssuers = max(1, maxIssuers)
        self.newIssuersPerWindow = max(1, newIssuersPerWindow)
        self.fetcher = fetcher
        self.time = time
        self.ttl = ttl
        self.refetchFloor = refetchFloor
    }

    /// The issuer's keys: cached while fresh, fetched otherwise; `refreshing` asks for a fetch
    /// (an unknown key id), which the floor may turn down.
    func keys(issuer: String, refreshing: Bool = false) async throws -> [JWK] {
        let now = time.now()
        if let entry = entries[issuer] {
            lastUsed[issuer] = now
            let stale = now.timeIntervalSince(entry.fetchedAt) >= ttl
            let mayFetch = now.timeIntervalSince(lastAttempt[issuer] ?? .distantPast) >= refetchFloor
            guard (stale || refreshing) && mayFetch else { return entry.keys }
            do {
                return try await fetch(issuer)
            } catch {
                return entry.keys
            }
        }
        guard now.timeIntervalSince(lastAttempt[issuer] ?? .distantPast) >= refetchFloor || inFlight[issuer] != nil else {
            throw IDTokenRefusal(.unreachable, "\(issuer): the last fetch failed less than \(Int(refetchFloor)) s ago")
        }
        if inFlight[issuer] == nil, lastAttempt[issuer] == nil {
            newFetches.removeAll { now.timeIntervalSince($0) >= refetchFloor }
            guard newFetches.count < newIssuersPerWindow else {
                throw IDTokenRefusal(.unreachable, "\(issuer): too many new issuers in the last \(Int(refetchFloor)) s")
            }
            newFetches.append(now)
        }
        return try await fetch(issuer)
    }

    /// How many issuers the cache holds anything for (keys or a recent attempt).
    public var issuerCount: Int { Set(entries.keys).union(lastAttempt.keys).count }

    /// Keeps at most ``maxIssuers``: the least recently used (or attempted) go first.
    private func evict() {
        let known = Set(entries.keys).union(lastAttempt.keys)
        guard known.count > maxIssuers else { return }
        let order = known.sorted { (lastUsed[$0] ?? lastAttempt[$0] ?? .distantPast) < (lastUsed[$1] ?? lastAttempt[$1] ?? .distantPast) }
        for issuer in order.prefix(known.count - maxIssuers) where inFlight[issuer] == nil {
            entries[issuer] = nil
            lastAttempt[issuer] = nil
            lastUsed[issuer] = nil
        }
    }

    private func fetch(_ issuer: String) async throws -> [JWK] {
        if let running = inFlight[issuer] { return try await running.value }
        lastAttempt[issuer] = time.now()
        lastUsed[issuer] = time.now()
        evict()
        let fetcher = self.fetcher
        let task = Task { try await Self.download(issuer, fetcher: fetcher) }
        inFlight[issuer] = task
        defer { inFlight[issuer] = nil }
        let keys = try await task.value
        entries[issuer] = Entry(keys: keys, fetchedAt: time.now())
        return keys
    }

    /// The discovery document, then the key set it names; both URLs must be HTTPS (or loopback).
    static func download(_ issuer: String, fetcher: any DocumentFetching) async throws -> [JWK] {
        guard IssuerURL.isAcceptable(issuer) else {
            throw IDTokenRefusal(.unreachable, "\(issuer): an issuer must be HTTPS (plain HTTP only on a loopback address)")
        }
        let discovery: [String: JSONValue]
        do {
            let data = try await fetcher.document(at: IssuerURL.discovery(for: issuer))
            discovery = try JSONDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw IDTokenRefusal(.unreachable, "\(issuer): discovery failed: \(error)")
        }
        let trimmed = { (text: String) in text.hasSuffix("/") ? String(text.dropLast()) : text }
        guard let named = discovery["issuer"]?.stringValue, trimmed(named) == trimmed(issuer) else {
            throw IDTokenRefusal(.unreachable, "\(issuer): the discovery document names another issuer")
        }
        guard let jwksURI = discovery["jwks_uri"]?.stringValue, IssuerURL.isAcceptable(jwksURI, namedBy: issuer) else {
            throw IDTokenRefusal(.unreachable, "\(issuer): no acceptable jwks_uri")
        }
        let set: [String: JSONValue]
        do {
            set = try JSONDecoder().decode([String: JSONValue].self, from: try await fetcher.document(at: jwksURI))
        } catch {
            throw IDTokenRefusal(.unreachable, "\(issuer): the key set could not be fetched: \(error)")
        }
        // Keys of kinds JWTKit cannot read (symmetric `oct` keys, encryption keys) are left out.
        let keys = (set["keys"]?.arrayValue ?? []).compactMap { key -> JWK? in
            if let use = key.objectValue?["use"], use != "sig" { return nil }
            guard let data = try? JSONEncoder().encode(key) else { return nil }
            return try? JSONDecoder().decode(JWK.self, from: data)
        }
        guard !keys.isEmpty else { throw IDTokenRefusal(.unreachable, "\(issuer): the key set has no usable key") }
        return keys
    }
}
