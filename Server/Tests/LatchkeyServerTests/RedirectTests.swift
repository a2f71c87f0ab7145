import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Synchronization
import Testing

/// The hostile-redirect table (`Tests/support/redirects.json`, shared with the browser's reading in
/// `compat/test_redirects.py`) against every endpoint that takes `redirect_to`: each string must
/// end in a `Location` on the site URL, and each allowed one in its canonical form.
@Suite struct RedirectTests {
    struct Table: Decodable {
        let siteURL: String
        let allowList: [String]
        let hostile: [String]
        let allowed: [String: String]

        enum CodingKeys: String, CodingKey {
            case siteURL = "site_url", allowList = "allow_list", hostile, allowed
        }

        static let shared: Table = {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../support/redirects.json")
            // The fixture is part of the repository: a missing one is a broken checkout.
            return try! JSONDecoder().decode(Table.self, from: Data(contentsOf: url))
        }()
    }

    static let table = Table.shared

    static func server() -> TestServer {
        TestServer { configuration in
            configuration.auth.siteURL = table.siteURL
            configuration.auth.uriAllowList = table.allowList
        }
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// Every case of the table: the string and the `Location` prefix it must end in.
    static var cases: [(input: String, expected: String)] {
        table.hostile.map { ($0, "https://app.example.com/#") } + table.allowed.map { ($0.key, $0.value) }
    }

    /// Clicks the newest link mailed to `email` (the confirmation page's POST) and returns the
    /// `Location` it answers with. Messages stored within one millisecond may come back in either
    /// order, so the newest is the newest whose link has not been clicked yet.
    static func clickLatestLink(_ client: any TestClientProtocol, to email: String, app: UseCases) async throws -> String {
        var token: Substring?
        var type: Substring?
        // `/recover` sends from a task of its own (its answer takes as long for unknown addresses).
        for _ in 0..<200 where token == nil {
            try await app.settleOutbox()
            for message in try await app.store.mailbox(to: EmailAddress.canonical(email), limit: 10) {
                guard let found = message.message.text.firstMatch(of: /token=([A-Za-z0-9_-]+)/)?.1 else { continue }
                let key = String(found)
                if clicked.withLock({ $0.contains(key) }) { continue }
                clicked.withLock { _ = $0.insert(key) }
                token = found
                type = message.message.text.firstMatch(of: /type=([a-z_]+)/)?.1
                break
            }
            if token == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let click = try await client.execute(
            uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: "token=\(try #require(token, "no new link to \(email)"))&type=\(try #require(type))")
        ) { $0 }
        #expect(click.status == .seeOther)
        return try #require(click.headers[.location])
    }

    static let clicked = Mutex<Set<String>>([])

    /// Marks every link mailed to `email` so far as one not to click (a code replaced since).
    static func skipLinks(to email: String, app: UseCases) async throws {
        try await app.settleOutbox()
        for message in try await app.store.mailbox(to: EmailAddress.canonical(email), limit: 10) {
            if let found = message.message.text.firstMatch(of: /token=([A-Za-z0-9_-]+)/)?.1 {
                clicked.withLock { _ = $0.insert(String(found)) }
            }
        }
    }

    static func expectLocation(_ location: String, _ expected: String, _ input: String, _ endpoint: String, succeeded: Bool = true) {
        #expect(location.hasPrefix(expected), "\(endpoint) redirect_to=\(input.debugDescription) → \(location)")
        // Before the fragment: the tokens after `#` are random base64url and may spell "evil".
        let target = location.split(separator: "#", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
        #expect(!target.contains("attacker") && !target.contains("evil"), "\(endpoint): \(location)")
        if succeeded { #expect(!location.contains("error="), "\(endpoint) redirect_to=\(input.debugDescription) → \(location)") }
    }

    @Test func linksMailedBySignInSignUpRecoveryAndResendGoOnlyWhereAllowed() async throws {
        try await Self.server().run { client, app async throws in
            for (index, (input, expected)) in Self.cases.enumerated() {
                let query = "?redirect_to=\(Self.encoded(input))"
                // /otp for a new address (the sign-up link), then /magiclink for the same user.
                let email = "r\(index)@example.com"
                #expect(try await client.send(.post, "/otp\(query)", json: #"{"email":"\#(email)"}"#).status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: email, app: app), expected, input, "/otp")
                #expect(try await client.send(.post, "/magiclink\(query)", json: #"{"email":"\#(email)"}"#).status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: email, app: app), expected, input, "/magiclink")
                #expect(try await client.send(.post, "/recover\(query)", json: #"{"email":"\#(email)"}"#).status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: email, app: app), expected, input, "/recover")
                // /signup with a password, then /resend of its confirmation.
                let other = "s\(index)@example.com"
                let signUp = #"{"email":"\#(other)","password":"correct horse battery staple"}"#
                #expect(try await client.send(.post, "/signup\(query)", json: signUp).status == .ok)
                try await Self.skipLinks(to: other, app: app)
                #expect(try await client.send(.post, "/resend\(query)", json: #"{"type":"signup","email":"\#(other)"}"#).status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: other, app: app), expected, input, "/resend")
            }
        }
    }

    @Test func emailChangeInvitationAndGeneratedLinksGoOnlyWhereAllowed() async throws {
        try await Self.server().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let session = try await client.signUpConfirmed("changer@example.com", app: app)
            for (index, (input, expected)) in Self.cases.enumerated() {
                let query = "?redirect_to=\(Self.encoded(input))"
                let newEmail = "changed\(index)@example.com"
                let change = try await client.send(
                    .put, "/user\(query)", json: #"{"email":"\#(newEmail)"}"#, bearer: session.accessToken)
                #expect(change.status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: newEmail, app: app), expected, input, "PUT /user")

                let invitee = "invitee\(index)@example.com"
                let invite = try await client.send(.post, "/invite\(query)", json: #"{"email":"\#(invitee)"}"#, bearer: admin)
                #expect(invite.status == .ok)
                Self.expectLocation(try await Self.clickLatestLink(client, to: invitee, app: app), expected, input, "/invite")

                let body = #"{"type":"magiclink","email":"changer@example.com","redirect_to":"\#(Self.jsonEscaped(input))"}"#
                let generated = try await client.send(.post, "/admin/generate_link", json: body, bearer: admin)
                #expect(generated.status == .ok)
                let link = try generated.decode(GeneratedLink.self)
                #expect(link.redirectTo.hasPrefix(expected.hasSuffix("#") ? Self.table.siteURL : expected), "\(input)")
                let click = try await client.execute(
                    uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=\(link.hashedToken)&type=magiclink")
                ) { $0 }
                Self.expectLocation(try #require(click.headers[.location]), expected, input, "/admin/generate_link")
            }
        }
    }

    @Test func theVerifyEndpointsAndPKCECodesGoOnlyWhereAllowed() async throws {
        try await Self.server().run { client, app async throws in
            for (index, (input, expected)) in Self.cases.enumerated() {
                let query = "redirect_to=\(Self.encoded(input))"
                // A link that fails: the error goes to the redirect asked for, when allowed.
                let failed = try await client.execute(
                    uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=nope&type=magiclink&\(query)")
                ) { $0 }
                Self.expectLocation(try #require(failed.headers[.location]), expected, input, "POST /verify (error)", succeeded: false)
                let unreadable = try await client.send(
                    .get, "/verify?type=magiclink&token=\(String(repeating: "x", count: 129))&\(query)")
                Self.expectLocation(try #require(unreadable.headers[.location]), expected, input, "GET /verify (error)", succeeded: false)

                // A good link clicked with a hostile redirect_to of its own.
                let email = "v\(index)@example.com"
                #expect(try await client.send(.post, "/otp", json: #"{"email":"\#(email)"}"#).status == .ok)
                let secret = try await client.latestLinkSecret(to: email, app: app)
                let click = try await client.execute(
                    uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=\(secret)&type=signup&\(query)")
                ) { $0 }
                Self.expectLocation(try #require(click.headers[.location]), expected, input, "POST /verify")

                // PKCE: the code goes to the redirect only when it is allowed.
                let pkce = "p\(index)@example.com"
                let body = #"{"email":"\#(pkce)","code_challenge":"\#(PKCETests.challenge)","code_challenge_method":"s256"}"#
                #expect(try await client.send(.post, "/otp?\(query)", json: body).status == .ok)
                let location = try await Self.clickLatestLink(client, to: pkce, app: app)
                let expectedBase = expected.hasSuffix("#") ? "https://app.example.com/?code=" : expected
                #expect(location.hasPrefix(expectedBase), "PKCE redirect_to=\(input.debugDescription) → \(location)")
                #expect(!location.contains("attacker") && !location.contains("evil"))
            }
        }
    }

    static func jsonEscaped(_ text: String) -> String {
        let data = try! JSONEncoder().encode(text)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
