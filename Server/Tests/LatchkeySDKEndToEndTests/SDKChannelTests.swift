import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SDK's magic-link, reset, change, linking and SMS calls against a live server.
@Suite struct SDKChannelTests {
    static let password = "correct horse battery staple"

    /// The code in the newest dev-mailbox SMS to `phone`.
    func smsCode(_ server: LiveServer, _ phone: String) async throws -> String {
        try await server.app.settleOutbox()
        let text = try #require(try await server.app.store.mailbox(to: phone, limit: 1).first?.message.text)
        return String(try #require(text.firstMatch(of: /code is (\d{6,10})/)).1)
    }

    @Test func magicLinkSurvivesAScannerAndOpensOnlyTheAppThatAskedElseTheCodeWorks() async throws {
        try await LiveServer.run { server in
            let phone = server.client()
            await phone.waitUntilReady()
            let state = try await phone.signInWithMagicLink(email: "magic@example.com")
            let link = try await server.latestLink("magic@example.com")
            // A mail scanner's GET shows a page and burns nothing.
            let onServer = try #require(URL(string: "\(server.url.absoluteString)/verify?\(link.query ?? "")"))
            let (_, scanned) = try await URLSession.shared.data(from: onServer)
            #expect((scanned as? HTTPURLResponse)?.statusCode == 200)
            let redirect = try #require(URL(string: try await server.click(link)))
            #expect(redirect.absoluteString.hasPrefix("myapp://auth-callback?code="))
            // Another install cannot finish with the redirect: it lacks the verifier.
            let laptop = server.client()
            await #expect(throws: LatchkeyError.self) { try await laptop.session(from: redirect) }
            let session = try await phone.session(from: redirect)
            #expect(session.user.email == "magic@example.com")
            #expect(state.channel == .email)

            // Cross-device: the code from the next email signs in anywhere.
            let next = try await laptop.signInWithMagicLink(email: "magic@example.com")
            let signedIn = try await next.submit(code: try await server.latestCode("magic@example.com"))
            #expect(signedIn.user.id == session.user.id)
        }
    }

    @Test func resetPasswordEndsOtherSessions() async throws {
        try await LiveServer.run { server in
            let first = server.client()
            _ = try await first.signUp(email: "reset@example.com", password: Self.password)
            try await first.verifyEmail(email: "reset@example.com", code: try await server.latestCode("reset@example.com"))
            let other = server.client()
            try await other.signIn(email: "reset@example.com", password: Self.password)

            let device = server.client()
            var events = device.authStateChanges.makeAsyncIterator()
            _ = await events.next()
            let state = try await device.resetPassword(email: "reset@example.com")
            var code = ""
            for _ in 0..<100 where code.isEmpty {
                try await server.app.settleOutbox()
                let mail = try await server.app.store.mailbox(to: "reset@example.com", limit: 1).first?.message
                if mail?.subject == "Reset your password", let match = mail?.text.firstMatch(of: /is (\d{6,10})\./) {
                    code = String(match.1)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await state.submit(code: code)
            #expect(await events.next()?.event == .passwordRecovery)
            try await device.updatePassword("a fresh new passphrase here")
            // The sessions from before the reset are over; the new password works.
            await #expect { try await other.user() } throws: { ($0 as? LatchkeyError)?.isSessionMissing == true }
            try await server.client().signIn(email: "reset@example.com", password: "a fresh new passphrase here")
        }
    }

    @Test func emailChangeThroughBothAddresses() async throws {
        try await LiveServer.run { server in
            let auth = server.client()
            _ = try await auth.signUp(email: "move@example.com", password: Self.password)
            try await auth.verifyEmail(email: "move@example.com", code: try await server.latestCode("move@example.com"))
            let pending = try await auth.changeEmail(to: "moved@example.com")
            #expect(pending.newEmail == "moved@example.com")
            guard
                case .waitingForOtherAddress = try await auth.confirmEmailChange(
                    email: "moved@example.com", code: try await server.latestCode("moved@example.com"))
            else {
                Issue.record("expected to wait for the other address")
                return
            }
            try await server.app.settleOutbox()
            let messages = try await server.app.store.mailbox(to: "move@example.com", limit: 5)
            let change = try #require(messages.first { $0.message.subject == "Confirm your email address change" }?.message.text)
            let code = String(try #require(change.firstMatch(of: /is (\d{6,10})\./)).1)
            guard case .completed(let session) = try await auth.confirmEmailChange(email: "move@example.com", code: code) else {
                Issue.record("expected the change to complete")
                return
            }
            #expect(session.user.email == "moved@example.com")
            #expect(await auth.currentUser?.email == "moved@example.com")
        }
    }

    /// An anonymous sign-in, then the same user made permanent by an address: confirmed by its
    /// code, or at once under autoconfirm (the session is refreshed so its token says so too).
    @Test(arguments: [false, true])
    func anonymousUserMadePermanent(autoconfirm: Bool) async throws {
        try await LiveServer.run(configure: {
            $0.auth.anonymousUsers = true
            $0.auth.mailerAutoconfirm = autoconfirm
        }) { server in
            let auth = server.client()
            let anonymous = try await auth.signInAnonymously(data: ["cart": 3])
            #expect(anonymous.user.isAnonymous)
            #expect(anonymous.user.userMetadata["cart"] == 3)
            let user = try await auth.makePermanent(email: "keep-\(autoconfirm)@example.com", password: Self.password)
            if autoconfirm {
                #expect(!user.isAnonymous)
            } else {
                #expect(user.isAnonymous)
                guard
                    case .completed = try await auth.confirmEmailChange(
                        email: "keep-\(autoconfirm)@example.com", code: try await server.latestCode("keep-\(autoconfirm)@example.com"))
                else {
                    Issue.record("expected the address to be confirmed")
                    return
                }
            }
            let current = try #require(await auth.currentSession)
            #expect(!current.user.isAnonymous)
            #expect(current.user.id == anonymous.user.id)
            #expect(await server.app.issuer.verify(current.accessToken)?.isAnonymous == false)
            #expect(try await auth.user().email == "keep-\(autoconfirm)@example.com")
        }
    }

    @Test func smsSignInAndLinkingAPhone() async throws {
        try await LiveServer.run(configure: { $0.auth.sms.testOTPs = ["15550001111": "135790"] }) { server in
            let auth = server.client()
            var state = try await auth.requestSMSCode(phone: "+1 555 222 3333")
            #expect(state.channel == .sms)
            #expect(state.sentTo.hasSuffix("3333"))
            do {
                try await state.submit(code: "000000")
            } catch let error as LatchkeyError where error.isInvalidCode {
                state = try #require(error.retryState)
            }
            let session = try await state.submit(code: try await smsCode(server, "15552223333"))
            #expect(session.user.phone == "15552223333")
            await #expect { try await auth.requestSMSCode(phone: "+0123") } throws: { ($0 as? LatchkeyError)?.isInvalidPhoneNumber == true }

            // An email user links a phone, then signs in with it by SMS.
            let emailUser = server.client()
            _ = try await emailUser.signUp(email: "links@example.com", password: Self.password)
            try await emailUser.verifyEmail(email: "links@example.com", code: try await server.latestCode("links@example.com"))
            let link = try await emailUser.link(phone: "+15550001111")
            let linked = try await link.submit(code: "135790")
            #expect(linked.user.phone == "15550001111")
            #expect(Set(linked.user.identities?.map(\.provider) ?? []) == ["email", "phone"])
            let bySMS = try await server.client().requestSMSCode(phone: "+15550001111", createUser: false)
            #expect(try await bySMS.submit(code: "135790").user.email == "links@example.com")
        }
    }

    @Test func phoneSignUpWithPassword() async throws {
        try await LiveServer.run { server in
            let auth = server.client()
            let result = try await auth.signUp(phone: "+447700900555", password: Self.password)
            #expect(result.session == nil)
            await #expect { try await auth.signIn(phone: "+447700900555", password: Self.password) } throws: {
                ($0 as? LatchkeyError)?.isPhoneNotConfirmed == true
            }
            try await auth.verifyPhone(phone: "+447700900555", code: try await smsCode(server, "447700900555"))
            let session = try await server.client().signIn(phone: "+447700900555", password: Self.password)
            #expect(session.user.phoneConfirmedAt != nil)
        }
    }
}
