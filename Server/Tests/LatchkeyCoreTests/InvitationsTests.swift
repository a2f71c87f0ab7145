import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// An operator's invitations and generated links against the in-memory store, a manual clock
/// and seeded randomness: new and unconfirmed addresses, confirmed ones refused, every link type,
/// and codes that sign in (or move the user) through ``Verification`` — without HTTP or a database.
@Suite struct InvitationsTests {
    static let client = ClientInfo(ip: "192.0.2.9", userAgent: "test")

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let invitations: Invitations
        let verification: Verification

        init() {
            var configuration = AuthConfiguration(siteURL: "http://localhost:3000")
            configuration.rateLimits = .unlimited
            let parts = TestCodeParts(
                memory: memory, time: time, sms: OneTimeCodesTests.RecordingSMS(), configuration: configuration, seed: 144)
            invitations = Invitations(
                store: memory,
                passwords: Passwords(
                    policy: PasswordPolicy(settings: configuration.password, blocklist: []), hasher: PasswordSignInTests.CountingHasher(),
                    decoyHash: "v1$decoy"),
                codes: parts.codes, records: parts.records, userMetadataMaxBytes: configuration.userMetadataMaxBytes)
            verification = Verification(
                store: memory, limiter: parts.limiter, settings: Verification.Settings(configuration), records: parts.records,
                redirects: parts.redirects)
        }

        /// Whether `code` of `type` signs `email` in.
        func signsIn(_ email: String, _ code: String, type: String) async throws -> Session? {
            let json = #"{"type":"\#(type)","email":"\#(email)","token":"\#(code)"}"#
            let request = try JSONDecoder().decode(VerifyRequest.self, from: Data(json.utf8))
            guard case .session(let session, _) = try await verification.verify(request, client: InvitationsTests.client) else {
                return nil
            }
            return session
        }

        func link(_ type: String, _ email: String, newEmail: String? = nil, password: String? = nil) async throws -> GeneratedLink {
            try await invitations.generateLink(
                GenerateLinkRequest(type: type, email: email, newEmail: newEmail, password: password, redirectTo: nil))
        }

        func confirmedUser(_ email: String) -> UserRecord {
            let now = time.now()
            let user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: email, passwordHash: nil, emailConfirmedAt: now,
                appMetadata: [:], userMetadata: [:], createdAt: now, updatedAt: now)
            memory.add(user)
            return user
        }
    }

    /// A new address gets a user and an invitation whose code confirms it and signs in; an
    /// unconfirmed one is invited again; a confirmed one is refused.
    @Test func anInvitationCodeConfirmsAndSignsIn() async throws {
        let f = Fixture()
        let user = try await f.invitations.invite(InviteRequest(email: "Ada@Example.com", data: ["team": "core"]), redirectTo: nil)
        #expect(user.email == "ada@example.com" && user.invitedAt == f.time.now() && user.userMetadata["team"] == "core")
        let mail = try #require(f.memory.outbox.first?.message)
        #expect(mail.subject == "invite" && mail.to == ["ada@example.com"])
        let code = String(try #require(mail.text.split(separator: "=").last))
        let again = try await f.invitations.invite(InviteRequest(email: "ada@example.com"), redirectTo: nil)
        #expect(again.id == user.id && f.memory.outbox.count == 2)
        // Only the newest invitation counts.
        #expect(try await errorOf { try await f.signsIn("ada@example.com", code, type: "invite") }?.code == .otpExpired)
        let newest = String(try #require(f.memory.outbox.last?.message?.text.split(separator: "=").last))
        let session = try #require(try await f.signsIn("ada@example.com", newest, type: "invite"))
        #expect(session.user.emailConfirmedAt == f.time.now())
        #expect(
            try await errorOf { try await f.invitations.invite(InviteRequest(email: "ada@example.com"), redirectTo: nil) }
                == AuthError.emailExists)
        let events = try await f.memory.auditEvents(AuditQuery(actions: [.userInvited])).events
        #expect(events.count == 2)
    }

    /// Every link type gives a link and a code, and sends nothing.
    @Test func generatedLinksSignInOrMoveTheUserAndSendNothing() async throws {
        let f = Fixture()
        let signup = try await f.link("signup", "new@example.com", password: "correct horse battery staple")
        #expect(signup.verificationType == "signup" && signup.user.emailConfirmedAt == nil && signup.emailOTP.count == 6)
        #expect(
            signup.actionLink.contains("type=signup")
                && signup.hashedToken == signup.actionLink.split(separator: "token=").last?.split(separator: "&").first.map(String.init))
        #expect(try await f.signsIn("new@example.com", signup.emailOTP, type: "signup") != nil)

        _ = f.confirmedUser("ada@example.com")
        let magic = try await f.link("magiclink", "ada@example.com")
        #expect(try await f.signsIn("ada@example.com", magic.emailOTP, type: "magiclink") != nil)
        let unknown = try await f.link("magiclink", "unknown@example.com")
        #expect(unknown.verificationType == "signup" && unknown.user.email == "unknown@example.com")

        let change = try await f.link("email_change_new", "ada@example.com", newEmail: "moved@example.com")
        #expect(change.verificationType == "email_change_new" && change.user.newEmail == "moved@example.com")
        let moved = try #require(try await f.signsIn("moved@example.com", change.emailOTP, type: "email_change"))
        #expect(moved.user.email == "moved@example.com")
        #expect(f.memory.outbox.filter { $0.recipient != "ada@example.com" }.isEmpty)
    }

    @Test(arguments: [
        ("recovery", "nobody@example.com", nil as String?, nil as String?, ErrorCode.userNotFound),
        ("signup", "new@example.com", nil, nil, .validationFailed),
        ("signup", "new@example.com", nil, "short", .weakPassword),
        ("email_change_new", "nobody@example.com", "x@example.com", nil, .userNotFound),
        ("bogus", "new@example.com", nil, nil, .validationFailed),
        ("magiclink", "not an address", nil, nil, .emailAddressInvalid),
    ])
    func badLinkRequestsAreRefused(_ type: String, _ email: String, _ newEmail: String?, _ password: String?, _ code: ErrorCode)
        async throws
    {
        let f = Fixture()
        #expect(try await errorOf { try await f.link(type, email, newEmail: newEmail, password: password) }?.code == code)
        #expect(try await f.memory.user(email: "new@example.com") == nil)
    }

    @Test func aConfirmedAddressIsNotSignedUpAgain() async throws {
        let f = Fixture()
        _ = f.confirmedUser("ada@example.com")
        #expect(
            try await errorOf { try await f.link("signup", "ada@example.com", password: "correct horse battery staple") }
                == AuthError.emailExists)
        let taken = f.confirmedUser("taken@example.com")
        _ = taken
        let refused = try await errorOf { try await f.link("email_change_new", "ada@example.com", newEmail: "taken@example.com") }
        #expect(refused == AuthError.emailExists)
    }
}
