import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct PKCETests {
    static let verifier = Base64URL.encode((0..<64).map { UInt8($0) })
    static var challenge: String { Base64URL.encode(SHA256.hash(data: Array(verifier.utf8))) }

    /// Requests a link with a challenge and clicks it in a browser; returns the `code` of the redirect.
    func clickPKCELink(_ client: any TestClientProtocol, app: UseCases, email: String) async throws -> String {
        let body = #"{"email":"\#(email)","code_challenge":"\#(Self.challenge)","code_challenge_method":"s256"}"#
        #expect(try await client.send(.post, "/otp?redirect_to=http://localhost:3000/cb", json: body).status == .ok)
        let secret = try await client.latestLinkSecret(to: email, app: app)
        let click = try await client.execute(
            uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: "token=\(secret)&type=signup")
        ) { $0 }
        #expect(click.status == .seeOther)
        let location = try #require(click.headers[.location])
        #expect(location.hasPrefix("http://localhost:3000/cb?code="))
        #expect(!location.contains("access_token"))
        return String(try #require(location.split(separator: "=").last))
    }

    @Test func aPKCELinkRedirectsWithACodeOnlyTheVerifierRedeems() async throws {
        try await TestServer().run { client, app async throws in
            let code = try await clickPKCELink(client, app: app, email: "pkce@example.com")
            let exchange = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(Self.verifier)"}"#)
            #expect(exchange.status == .ok)
            #expect(exchange.headers[.cacheControl] == "no-store")
            let session = try exchange.decode(Session.self)
            #expect(session.user.emailConfirmedAt != nil)
            let again = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(Self.verifier)"}"#)
            #expect(again.status == .notFound)
            #expect(again.errorCode == "flow_state_not_found")
        }
    }

    /// A wrong verifier (another request's, or a thief's) is refused and spends nothing: the
    /// owner's verifier still signs in, once.
    @Test func aWrongVerifierLeavesTheCodeToItsOwner() async throws {
        try await TestServer().run { client, app async throws in
            let code = try await clickPKCELink(client, app: app, email: "thief@example.com")
            for wrongVerifier in [String(repeating: "x", count: 64), Self.challenge] {
                let stolen = try await client.send(
                    .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(wrongVerifier)"}"#)
                #expect(stolen.status == .badRequest && stolen.errorCode == "bad_code_verifier")
            }
            let owner = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(Self.verifier)"}"#)
            #expect(owner.status == .ok)
            let again = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(Self.verifier)"}"#)
            #expect(again.errorCode == "flow_state_not_found")
        }
    }

    @Test func codesExpireAndBadRequestsAreClear() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let code = try await clickPKCELink(client, app: app, email: "slow@example.com")
            time.advance(by: 301)
            let expired = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(code)","code_verifier":"\#(Self.verifier)"}"#)
            #expect(expired.status == .unprocessableContent)
            #expect(expired.errorCode == "flow_state_expired")
            let empty = try await client.send(.post, "/token?grant_type=pkce", json: #"{"auth_code":"","code_verifier":""}"#)
            #expect(try empty.decode(APIErrorBody.self).message == "invalid request: both auth code and code verifier should be non-empty")
            let badChallenge = try await client.send(
                .post, "/otp", json: #"{"email":"x@example.com","code_challenge":"short","code_challenge_method":"s256"}"#)
            #expect(badChallenge.errorCode == "validation_failed")
            let badMethod = try await client.send(
                .post, "/otp", json: #"{"email":"x@example.com","code_challenge":"\#(Self.challenge)","code_challenge_method":"md5"}"#)
            #expect(badMethod.errorCode == "validation_failed")
        }
    }

    @Test func theCodeInThePKCEEmailStillSignsInOnAnotherDevice() async throws {
        try await TestServer().run { client, app async throws in
            let body = #"{"email":"cross@example.com","code_challenge":"\#(Self.challenge)","code_challenge_method":"S256"}"#
            try await client.send(.post, "/otp", json: body)
            let code = try await client.latestCode(to: "cross@example.com", app: app)
            let verify = try await client.send(.post, "/verify", json: #"{"type":"email","email":"cross@example.com","token":"\#(code)"}"#)
            #expect(verify.status == .ok)
        }
    }
}
