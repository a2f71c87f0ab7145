import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyUI

/// Issue #37: `SignInView`'s logic, every screen and fallback, on Linux against a scripted server.
@MainActor @Suite struct SignInModelTests {
    static let userID = "8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11"
    static let sent = #"{"message_id":"m1","code_length":6,"expires_in":600,"resend_after":60,"max_attempts":5}"#
    static let user =
        #"{"id":"\#(userID)","aud":"authenticated","role":"authenticated","email":"ada@example.com","phone":"","app_metadata":{"provider":"email"},"user_metadata":{},"identities":[],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","is_anonymous":false}"#
    static let session =
        #"{"access_token":"a","token_type":"bearer","expires_in":3600,"expires_at":4102444800,"refresh_token":"r","user":\#(user)}"#
    static let hint = ReturningUser(
        userID: UUID(uuidString: userID)!, email: "ada@example.com", phone: nil, maskedAddress: "a***@example.com",
        passkeyRegisteredHere: false, deviceKeyEnrolledHere: false, lastSignedInAt: Date(timeIntervalSince1970: 1_790_000_000))

    static func error(_ status: Int, _ body: String, headers: [String: String] = [:]) -> MockTransport.Reply {
        MockTransport.Reply(
            status: status, headers: ["Content-Type": "application/json", "X-Supabase-Api-Version": "2024-01-01"].merging(headers) { $1 },
            body: Data(body.utf8))
    }

    /// A client over `transport`, remembering `hint` when given.
    static func client(_ transport: MockTransport, hint: ReturningUser? = nil) async throws -> AuthClient {
        let storage = InMemorySessionStorage()
        if let hint { await storage.save(try JSONEncoder().encode(hint), key: "latchkey.session.returning-user") }
        let auth = AuthClient(
            configuration: .init(url: URL(string: "https://auth.example.com")!, storage: storage, transport: transport, autoRefresh: false))
        await auth.waitUntilReady()
        return auth
    }

    static func step(_ method: SignInMethod, _ outcome: Result<Void, LatchkeyError>) -> ReturningUserStep {
        ReturningUserStep(method: method) { auth, _ in
            try outcome.get()
            return try await auth.signIn(email: "ada@example.com", password: "pw")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aNewUserTypesAnAddressAndACodeThenIsOfferedAPasskey() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        await transport.respond(
            to: "POST", path: "/verify",
            Self.error(
                403, #"{"code":"otp_expired","message":"Token has expired or is invalid","reason":"invalid","attempts_remaining":4}"#),
            MockTransport.Reply(status: 200, body: Data(Self.session.utf8)))
        let model = SignInModel(client: try await Self.client(transport))
        var signedIn: [Session] = []
        model.onSignedIn = { signedIn.append($0) }
        #expect(model.screen == .loading)
        await model.load()
        #expect(model.screen == .choices && model.address.isEmpty && !model.deviceKeyHere)

        await model.sendCode()
        #expect(model.notice == .invalidAddress && model.screen == .choices)
        model.address = "  ada@example.com "
        await model.sendCode()
        guard case .code(let sent) = model.screen else { Issue.record("no code screen: \(model.screen)"); return }
        #expect(sent.email == "ada@example.com" && model.notice == nil)
        #expect(await transport.requests.last?.json?["create_user"] == true)
        #expect(model.secondsUntilResend(at: sent.resendAvailableAt.addingTimeInterval(-59.5)) == 60)
        #expect(model.secondsUntilResend(at: sent.resendAvailableAt) == 0)

        model.code = "000 000"
        await model.submitCode()
        #expect(model.notice == .wrongCode(attemptsRemaining: 4))
        #expect(SignInModel.text(for: model.notice!, copy: SignInCopy(language: "en")) == "That code is not right. Tries left: 4.")
        guard case .code = model.screen else { Issue.record("left the code screen"); return }
        #expect(await transport.requests.last?.json?["token"] == "000000")

        model.code = "123456"
        await model.submitCode()
        guard case .upgrade(.registerPasskey, let session) = model.screen else { Issue.record("no offer: \(model.screen)"); return }
        #expect(signedIn.isEmpty)
        model.declineUpgrade()
        #expect(model.screen == .signedIn(session) && signedIn.map(\.accessToken) == ["a"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aReturningUserIsGreetedAndEachFallbackIsExplained() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        await transport.respond(to: "POST", path: "/token", json: Self.session)
        let model = SignInModel(client: try await Self.client(transport, hint: Self.hint))
        await model.load()
        #expect(model.screen == .welcomeBack(Self.hint) && model.address == "ada@example.com")

        // The passkey sheet dismissed: still welcomed, nothing sent, nothing to scold.
        await model.continueAsReturningUser(steps: [Self.step(.passkey, .failure(.init(code: .userCancelled, message: "")))])
        #expect(model.screen == .welcomeBack(Self.hint) && model.notice == nil)
        #expect(await transport.count("POST", "/otp") == 0)

        // The device key revoked: a code, and why.
        await model.continueAsReturningUser(steps: [
            Self.step(.passkey, .failure(.init(code: .noCredentialOnDevice, message: ""))),
            Self.step(.deviceKey, .failure(.init(code: .deviceKeyNotFound, message: ""))),
        ])
        guard case .code = model.screen else { Issue.record("no code screen: \(model.screen)"); return }
        #expect(model.notice == .deviceKeyRevoked)
        #expect(SignInModel.text(for: .deviceKeyRevoked, copy: SignInCopy(language: "fr")).hasPrefix("Cet appareil ne peut plus"))
        model.back()
        await Task.yield()
        try await Task.sleep(for: .milliseconds(50))
        #expect(model.screen == .welcomeBack(Self.hint) && model.notice == nil)

        // Biometrics changed; a cancel the app chose to go past; offline on the way.
        for (failure, notice) in [
            (LatchkeyError(code: .deviceKeyMissing, message: ""), SignInModel.Notice.biometryChanged),
            (LatchkeyError(code: .userCancelled, message: ""), .cancelledThenCode),
            (LatchkeyError(code: .networkError, message: ""), .offline),
        ] {
            await model.continueAsReturningUser(steps: [Self.step(.deviceKey, .failure(failure))], continueAfterCancel: true)
            #expect(model.notice == notice)
            model.back()
            try await Task.sleep(for: .milliseconds(50))
        }

        // A step that signs in: no code, no offer (the user already holds a strong way in).
        await model.continueAsReturningUser(steps: [Self.step(.passkey, .success(()))])
        guard case .signedIn = model.screen else { Issue.record("not signed in: \(model.screen)"); return }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func stepsTheScreenDoesNotOfferAreNotTried() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        let model = SignInModel(client: try await Self.client(transport, hint: Self.hint), methods: [.email])
        await model.load()
        await model.continueAsReturningUser(steps: [Self.step(.passkey, .success(()))])
        guard case .code = model.screen else { Issue.record("the passkey step ran: \(model.screen)"); return }
        #expect(await transport.count("POST", "/token") == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theOfferOfADeviceKeyIsAcceptedOrOutlivesAFailure() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        await transport.respond(to: "POST", path: "/verify", json: Self.session)
        let model = SignInModel(client: try await Self.client(transport, hint: Self.hint), methods: [.email, .deviceKey])
        await model.load()
        await model.sendCodeToReturningUser()
        model.code = "123456"
        await model.submitCode()
        guard case .upgrade(.enrollDeviceKey, let session) = model.screen else { Issue.record("no offer: \(model.screen)"); return }
        await model.acceptUpgrade { _ in throw LatchkeyError(code: .deviceKeyUnavailable, message: "The Secure Enclave is busy") }
        #expect(model.notice == .failed("The Secure Enclave is busy"))
        guard case .upgrade = model.screen else { Issue.record("the offer went: \(model.screen)"); return }
        await model.acceptUpgrade { _ in throw LatchkeyError(code: .userCancelled, message: "") }
        guard case .upgrade = model.screen else { Issue.record("the offer went: \(model.screen)"); return }
        var enrolled = false
        await model.acceptUpgrade { _ in enrolled = true }
        #expect(enrolled && model.screen == .signedIn(session))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [
        (403, #"{"code":"otp_expired","message":"Token has expired or is invalid","reason":"expired"}"#, "codeExpired"),
        (403, #"{"code":"otp_expired","message":"Token has expired or is invalid","reason":"exhausted"}"#, "tooManyAttempts"),
        (429, #"{"code":"over_request_rate_limit","message":"Request rate limit reached"}"#, "rateLimited"),
        (422, #"{"code":"user_not_found","message":"User not found"}"#, "unknownAccount"),
        (400, #"{"code":"validation_failed","message":"Unable to validate email address: invalid format"}"#, "invalidAddress"),
        (500, #"{"code":"unexpected_failure","message":"Something broke"}"#, "failed"),
    ])
    func eachRefusalIsANotice(_ status: Int, _ body: String, _ expected: String) async throws {
        let transport = MockTransport()
        let onOTP = expected == "unknownAccount" || expected == "invalidAddress" || expected == "failed"
        if onOTP {
            await transport.respond(to: "POST", path: "/otp", Self.error(status, body))
        } else {
            await transport.respond(to: "POST", path: "/otp", json: Self.sent)
            await transport.respond(to: "POST", path: "/verify", Self.error(status, body, headers: ["Retry-After": "30"]))
        }
        let model = SignInModel(client: try await Self.client(transport), allowsSignUp: false)
        await model.load()
        model.address = "ada@example.com"
        await model.sendCode()
        if !onOTP {
            model.code = "123456"
            await model.submitCode()
        }
        let notice = try #require(model.notice)
        #expect(String(describing: notice).hasPrefix(expected))
        #expect(!SignInModel.text(for: notice, copy: SignInCopy(language: "fr")).isEmpty)
        if expected == "rateLimited" { #expect(notice == .rateLimited(seconds: 30)) }
        #expect(!model.isWorking)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aPhoneScreenTextsTheCode() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        let model = SignInModel(client: try await Self.client(transport), methods: [.phone])
        await model.load()
        #expect(model.usesPhone)
        model.address = "+15551234567"
        await model.sendCode()
        #expect(await transport.requests.last?.json?["phone"] == "+15551234567")
    }
}

/// The strings catalogue: every key in English and French, with the same format, and nothing
/// in it the screen does not use.
@Suite struct SignInCopyTests {
    @Test func everyKeyIsTranslatedWithTheSameFormat() throws {
        // The source file: on Apple platforms the build compiles it into `.lproj` tables.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/LatchkeyUI/Resources/Localizable.xcstrings")
        let catalogue = try JSONDecoder().decode(Catalogue.self, from: Data(contentsOf: source))
        #expect(Set(catalogue.strings.keys) == Set(SignInCopy.Key.allCases.map(\.rawValue)))
        for key in SignInCopy.Key.allCases {
            let entry = try #require(catalogue.strings[key.rawValue])
            let english = try #require(entry.localizations["en"]?.stringUnit.value, "\(key) has no English")
            let french = try #require(entry.localizations["fr"]?.stringUnit.value, "\(key) has no French")
            let formats = { (text: String) in text.matches(of: /%(@|lld)/).map { String($0.output.1) } }
            #expect(formats(english) == formats(french), "\(key)")
            #expect(formats(english) == formats(key.rawValue), "\(key): the key says its format")
            #expect(english != french || ["code.field"].contains(key.rawValue), "\(key) is not translated")
        }
    }

    @Test func theUsersLanguageTheAppsWordsAndTheFormat() {
        #expect(SignInCopy(language: "en")(.welcomeSubtitle, "a***@example.com") == "Continue as a***@example.com")
        #expect(SignInCopy(language: "fr-CA")(.welcomeSubtitle, "a***@example.com") == "Continuer en tant que a***@example.com")
        #expect(SignInCopy(language: "ja")(.codeSubmit) == "Sign in")  // no Japanese: the source language
        #expect(SignInCopy(language: "fr")(.codeResendIn, 42) == "Nouveau code dans 42 s")
        #expect(SignInCopy(overrides: [.title: "Welcome to Acme"], language: "fr")(.title) == "Welcome to Acme")
    }
}

extension SignInCopyTests {
    /// An app's text whose format differs from the key's would make `String(format:)` read an
    /// argument that is not there: it is passed over for the module's.
    @Test func anAppsTextWithAnotherFormatIsPassedOver() {
        let copy = SignInCopy(
            overrides: [.welcomeSubtitle: "Hello %@, %@", .codeResendIn: "Again in %@", .title: "Acme: 100% passwordless"],
            language: "en")
        #expect(copy(.welcomeSubtitle, "a***@example.com") == "Continue as a***@example.com")
        #expect(copy(.codeResendIn, 5) == "Send a new code in 5 s")
        #expect(copy(.title) == "Acme: 100% passwordless")
        #expect(SignInCopy(overrides: [.welcomeSubtitle: "Bonjour %@"])(.welcomeSubtitle, "a") == "Bonjour a")
    }
}
