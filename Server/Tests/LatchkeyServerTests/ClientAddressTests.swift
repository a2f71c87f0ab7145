import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// Which address a request is from, and what it may read because of it.
@Suite struct ClientAddressTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    @Test func theRightMostForwardedAddressIsTheClientSoAForgedLeftOneDoesNotEscapeALimit() async throws {
        // A clock that stands still: no window boundary falls between the requests.
        try await TestServer {
            $0.trustedIPHeader = "X-Forwarded-For"
            $0.auth.rateLimits.otpPerIP = RateLimit(count: 2, period: 300)
        }.run(time: ManualTimeSource(Date())) { client, _ async throws in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<3 {
                // What a client sends through nginx's $proxy_add_x_forwarded_for: its own pick, then its real address.
                let response = try await client.send(
                    .post, "/otp", json: #"{"email":"xff\#(index)@example.com"}"#,
                    headers: [Self.forwardedFor: "198.51.100.\(index), 203.0.113.7"])
                statuses.append(response.status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests])
            // Another real address has a budget of its own.
            let other = try await client.send(
                .post, "/otp", json: #"{"email":"xff9@example.com"}"#, headers: [Self.forwardedFor: "198.51.100.1, 203.0.113.8"])
            #expect(other.status == .ok)
        }
    }

    @Test func theDevMailboxAnswersLoopbackRequestsThatCameThroughNoProxy() async throws {
        try await TestServer().run { client, _ async throws in
            #expect(try await client.send(.get, "/_dev/mailbox").status == .ok)
            // A reverse proxy on the same host: the socket is loopback, the request is not.
            let proxied = try await client.send(.get, "/_dev/mailbox", headers: [Self.forwardedFor: "203.0.113.7"])
            #expect(proxied.status == .notFound)
            let forwarded = try await client.send(.get, "/_dev/mailbox", headers: [HTTPField.Name("Forwarded")!: "for=203.0.113.7"])
            #expect(forwarded.status == .notFound)
        }
    }

    @Test func theDevMailboxIsOffBehindATrustedProxyOrOnAPublicAddress() async throws {
        try await TestServer { $0.trustedIPHeader = "X-Real-IP" }.run { client, _ async throws in
            #expect(try await client.send(.get, "/_dev/mailbox").status == .notFound)
        }
        try await TestServer { $0.host = "0.0.0.0" }.run { client, _ async throws in
            #expect(try await client.send(.get, "/_dev/mailbox").status == .notFound)
        }
        // Explicitly public: on for everyone (a deployment's own choice).
        try await TestServer {
            $0.host = "0.0.0.0"
            $0.devMailboxPublic = true
        }.run { client, _ async throws in
            #expect(try await client.send(.get, "/_dev/mailbox").status == .ok)
        }
    }
}
