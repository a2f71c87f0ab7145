import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Logging
import Synchronization
import Testing

@testable import LatchkeyServer

/// Client addresses behind proxies (issue #17): networks read strictly, the right-most untrusted
/// `X-Forwarded-For` entry behind a trusted peer, and nothing believed from any other peer.
@Suite struct TrustedProxyTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"), ("10.1.2.3/8", "10.0.0.0/8"), ("192.0.2.7", "192.0.2.7/32"),
        ("fd00::/8", "fd00::/8"), ("2001:db8::1", "2001:db8::1/128"), ("::ffff:192.0.2.7", "192.0.2.7/32"),
        ("0.0.0.0/0", "0.0.0.0/0"),
    ])
    func networksAreRead(text: String, description: String) throws {
        #expect(try #require(IPNetwork(text)).description == description)
    }

    @Test(arguments: [
        "", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/", "/8", "10.0.0", "10.0.0.256", "010.0.0.1",
        "fd00::/129", "fe80::1%eth0", "[::1]", "192.0.2.7:80", "10.0.0.0/8/8", "10.0.0.0/٨", "example.com", "10.0.0.1\u{0}",
        String(repeating: "1", count: 200),
    ])
    func hostileNetworksAreRefused(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func membership() throws {
        let network = try #require(IPNetwork("172.16.0.0/12"))
        #expect(network.contains("172.31.255.255"))
        #expect(!network.contains("172.32.0.0"))
        #expect(!network.contains("::ffff:172.32.0.0"))
        #expect(network.contains("::ffff:172.16.0.1"))
        #expect(!network.contains("not an address"))
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains("2001:db8:ffff::1") && !v6.contains("2001:db9::1") && !v6.contains("32.1.13.184"))
    }

    static func resolver(_ trusted: [String]) -> ClientResolver {
        ClientResolver(trustedIPHeader: nil, trustedProxies: trusted.compactMap(IPNetwork.init))
    }

    static func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test(arguments: [
        // A trusted peer: the right-most untrusted entry, whatever the client put left of it.
        ("10.0.0.2", [("X-Forwarded-For", "1.2.3.4, 203.0.113.9")], "203.0.113.9"),
        ("10.0.0.2", [("X-Forwarded-For", "1.2.3.4, 203.0.113.9, 10.0.0.7")], "203.0.113.9"),
        ("10.0.0.2", [("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-For", "203.0.113.9")], "203.0.113.9"),
        ("10.0.0.2", [("X-Forwarded-For", "203.0.113.9, garbage")], "10.0.0.2"),
        ("10.0.0.2", [("X-Forwarded-For", "2001:DB8:0:0::1")], "2001:db8::1"),
        ("10.0.0.2", [("X-Forwarded-For", "10.0.0.9, 10.0.0.8")], "10.0.0.9"),
        ("10.0.0.2", [], "10.0.0.2"),
        ("10.0.0.2", [("Forwarded", #"for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711""#)], "2001:db8:cafe::17"),
        ("10.0.0.2", [("Forwarded", "for=192.0.2.60:8080")], "192.0.2.60"),
        // A peer that is not trusted is the client, whatever it says.
        ("198.51.100.4", [("X-Forwarded-For", "203.0.113.9")], "198.51.100.4"),
        ("127.0.0.1", [("X-Forwarded-For", "203.0.113.9")], "127.0.0.1"),
    ])
    func theRightMostUntrustedAddressBehindATrustedPeer(peer: String, headers: [(String, String)], expected: String) {
        #expect(Self.resolver(["10.0.0.0/8"]).address(peer: peer, headers: Self.headers(headers)) == expected)
    }

    /// With nothing trusted, `X-Forwarded-For` from a private or loopback peer means a proxy the
    /// server was not told about: one warning, however many requests; none for a public peer.
    @Test func anUnconfiguredProxyIsReportedOnce() {
        let captured = CapturedLog()
        let resolver = ClientResolver(trustedIPHeader: nil, logger: Logger(label: "test") { _ in captured })
        let forwarded = Self.headers([("X-Forwarded-For", "203.0.113.9")])
        #expect(resolver.address(peer: "203.0.113.1", headers: forwarded) == "203.0.113.1")
        #expect(resolver.address(peer: "127.0.0.1", headers: Self.headers([])) == "127.0.0.1")
        #expect(captured.messages.isEmpty)
        for _ in 0..<3 { #expect(resolver.address(peer: "10.1.2.3", headers: forwarded) == "10.1.2.3") }
        #expect(captured.messages.count == 1)
        #expect(captured.messages.first?.contains("LATCHKEY_TRUSTED_PROXIES") == true)
    }

    /// Over a real socket: behind the trusted loopback proxy the forwarded address is the client
    /// (its own budget, and the audit log's address); a forged left-most entry changes nothing.
    @Test func behindATrustedProxyEachClientHasItsOwnBudgetAndAddress() async throws {
        try await TestServer {
            $0.trustedProxies = [IPNetwork("127.0.0.0/8")!]
            $0.auth.rateLimits.otpPerIP = RateLimit(count: 2, period: 300)
        }.run(time: ManualTimeSource(Date())) { client, app async throws in
            let xff = HTTPField.Name("X-Forwarded-For")!
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<3 {
                let response = try await client.send(
                    .post, "/otp", json: #"{"email":"proxied\#(index)@example.com"}"#, headers: [xff: "198.51.100.\(index), 203.0.113.7"])
                statuses.append(response.status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests])
            #expect(
                try await client.send(.post, "/otp", json: #"{"email":"other@example.com"}"#, headers: [xff: "203.0.113.8"]).status
                    == .ok)
            let events = try await app.store.auditEvents(AuditQuery(limit: 50)).events
            #expect(events.contains { $0.ip == "203.0.113.7" })
            #expect(!events.contains { $0.ip == "198.51.100.0" || $0.ip == "127.0.0.1" })
        }
    }

    @Test func aPeerThatIsNotTrustedIsTheClientWhateverItForwards() async throws {
        try await TestServer {
            $0.trustedProxies = [IPNetwork("10.0.0.0/8")!]
            $0.auth.rateLimits.otpPerIP = RateLimit(count: 2, period: 300)
        }.run(time: ManualTimeSource(Date())) { client, _ async throws in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<3 {
                let response = try await client.send(
                    .post, "/otp", json: #"{"email":"direct\#(index)@example.com"}"#,
                    headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.\(index)"])
                statuses.append(response.status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests])
        }
    }

    @Test func trustedProxiesAreConfiguredAndBadOnesRefused() throws {
        let loaded = try ServerConfiguration.load(environment: ["LATCHKEY_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8,192.0.2.7"])
        #expect(loaded.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32"])
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(environment: ["LATCHKEY_TRUSTED_PROXIES": "10.0.0.0/8, nginx"])
        }
    }
}

/// A log handler that keeps the messages logged through it.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lines.withLock { $0 } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append(event.message.description) }
    }
}
