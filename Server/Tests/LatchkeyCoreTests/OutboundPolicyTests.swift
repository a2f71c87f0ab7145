import Foundation
import Testing

@testable import LatchkeyCore

/// Where outbound requests may go: this machine by name, no internal address by literal or by
/// what a name resolves to, unless the operator allows internal addresses.
@Suite struct OutboundPolicyTests {
    /// A resolver that answers from a table, as DNS would.
    static func policy(allowInternal: Bool = false) -> OutboundPolicy {
        let table: [String: [String]] = [
            "hooks.example": ["203.0.113.7", "2001:db8::7"], "rebound.example": ["203.0.113.8", "10.0.0.9"],
            "metadata.example": ["169.254.169.254"], "loop.example": ["127.0.0.1"], "v6inside.example": ["fd00::1"],
        ]
        return OutboundPolicy(allowInternal: allowInternal) { table[$0] ?? [] }
    }

    @Test(arguments: [
        ("https://hooks.example/send", true),
        ("http://127.0.0.1:8080/hook", true),
        ("http://localhost:8080/hook", true),
        ("http://[::1]:8080/hook", true),
        ("http://host.docker.internal:3000/hook", true),
        ("https://203.0.113.9/jwks", true),
        ("https://169.254.169.254/latest/meta-data/", false),
        ("https://10.1.2.3/hook", false),
        ("https://[fe80::1]/hook", false),
        ("https://[::ffff:a9fe:a9fe]/hook", false),
        ("https://[64:ff9b::a00:1]/hook", false),
        ("https://[0:0:0:0:0:ffff:10.0.0.1]/hook", false),
        ("https://[fe80::1%25eth0]/hook", false),
        ("https://rebound.example/hook", false),
        ("https://metadata.example/hook", false),
        ("https://loop.example/hook", false),
        ("https://v6inside.example/hook", false),
        ("https://unknown.example/hook", true),
        ("not a url", false),
    ])
    func internalAddressesAreRefused(_ url: String, _ allowed: Bool) async {
        #expect((await Self.policy().problem(url) == nil) == allowed, "\(url)")
        // With internal addresses allowed, everything with a host is.
        #expect((await Self.policy(allowInternal: true).problem(url) == nil) == (url != "not a url"), "\(url)")
    }

    /// The system resolver answers for this machine's own name and none for a name that does not
    /// resolve.
    @Test func theSystemResolverResolves() async {
        #expect(await OutboundPolicy.systemResolve("localhost").contains { IssuerURL.isLoopback($0) })
        #expect(await OutboundPolicy.systemResolve("no-such-host.invalid").isEmpty)
    }
}

/// Per-IP limits count an IPv6 client by its /64: one host's 2^64 addresses are one client.
@Suite struct ClientLimitKeyTests {
    @Test(arguments: [
        ("192.0.2.9", "192.0.2.9"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("[2001:db8:1:2::ffff]", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80:0:0:0::/64"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("::1", "0:0:0:0::/64"),
        ("unknown", "unknown"),
        ("", ""),
        ("2001:db8::zz", "2001:db8::zz"),
    ])
    func ipv6ClientsAreCountedByTheirSlash64(_ ip: String, _ key: String) {
        #expect(ClientInfo(ip: ip).limitKey == key)
    }

    @Test func twoAddressesOfOneNetworkShareALimit() async throws {
        let store = InMemoryStore()
        let limiter = RateLimiter(store: store, time: ManualTimeSource())
        let limit = RateLimit(count: 2, period: 300)
        for suffix in ["1", "2"] {
            try await limiter.hit([.tokenRequests(from: ClientInfo(ip: "2001:db8:7:7::\(suffix)"), limit)])
        }
        await #expect(throws: AuthError.self) {
            try await limiter.hit([.tokenRequests(from: ClientInfo(ip: "2001:db8:7:7:ffff::3"), limit)])
        }
        // Another network is another client.
        try await limiter.hit([.tokenRequests(from: ClientInfo(ip: "2001:db8:7:8::1"), limit)])
    }
}
