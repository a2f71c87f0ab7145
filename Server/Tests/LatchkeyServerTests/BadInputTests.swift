import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct BadInputTests {
    static let endpoints = ["/signup", "/token?grant_type=password", "/token?grant_type=refresh_token", "/otp", "/verify", "/resend"]

    @Test(arguments: endpoints)
    func malformedBodiesAreClear4xx(path: String) async throws {
        try await TestServer().run { client, _ async throws in
            for body in [
                "{not json", "[1,2,3]", "\"text\"", #"{"email":123,"password":true,"type":[],"refresh_token":{}}"#,
                String(repeating: "[", count: 10_000),
            ] {
                let response = try await client.send(.post, path, json: body)
                #expect((400..<500).contains(Int(response.status.code)), "\(path) answered \(response.status) to \(body.prefix(20))")
                #expect(response.errorCode != nil || (try? response.decode(OAuthErrorBody.self)) != nil)
            }
        }
    }

    @Test(arguments: endpoints)
    func oversizedBodiesAre413(path: String) async throws {
        try await TestServer().run { client, _ async throws in
            let big = #"{"email":""# + String(repeating: "a", count: 1_100_000) + #""}"#
            let response = try await client.send(.post, path, json: big)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "request_entity_too_large")
        }
    }

    @Test func invalidAndHostileEmailsChangeNothing() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("keep@example.com", app: app)
            for email in [
                "not-an-email", "a@b", "'; DROP TABLE users;--@x.com", "\" OR 1=1 --", "a\nb@example.com",
                String(repeating: "l", count: 65) + "@example.com", "аdmin@example.com\u{0}",
            ] {
                let json = try String(
                    decoding: JSONEncoder().encode(["email": email, "password": "correct horse battery staple"]), as: UTF8.self)
                let response = try await client.send(.post, "/signup", json: json)
                #expect((400..<500).contains(Int(response.status.code)))
                #expect(response.errorCode == "email_address_invalid")
            }
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status == .ok)
        }
    }
}
