import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `latchkey login`: signs in from the terminal with the SDK, by emailed code or password, then
/// with the authenticator app, or a code sent to the phone, when the account has a second factor.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in from the terminal with an emailed code (or --password), using the Swift SDK.")

    @Option(help: "The address to sign in with.") var email: String
    @Option(help: "The auth server.") var url: String = "http://127.0.0.1:9999"
    @Flag(help: "Sign in with a password (asked for without echo) instead of a code.") var password = false

    func run() async throws {
        guard let server = URL(string: url), server.scheme != nil else { throw ValidationError("--url must be a URL") }
        let auth = AuthClient(configuration: .init(url: server, storage: InMemorySessionStorage(), autoRefresh: false))
        do {
            let first = password ? try await signInWithPassword(auth) : try await signInWithCode(auth)
            let session = try await stepUp(auth, after: first)
            let expiry = Date(timeIntervalSince1970: TimeInterval(session.expiresAt))
            let level = try await auth.mfa.assuranceLevel().current == .aal2 ? " with a second factor" : ""
            print("Signed in as \(session.user.email)\(level)")
            print("Session expires at \(expiry.formatted(.iso8601)) (access token; the refresh token renews it)")
        } catch let error as LatchkeyError {
            throw CLIError("Sign-in failed: \(error.message) (\(error.code))")
        }
    }

    func signInWithPassword(_ auth: AuthClient) async throws -> Session {
        let secret = try Terminal.readSecret(prompt: "Password: ")
        return try await auth.signIn(email: email, password: secret)
    }

    /// Asks for a second factor's code when the account has a verified factor: the authenticator
    /// app's, else one sent to the phone factor's number (an empty line sends a new one). A
    /// recovery code (letters and digits) is taken at either prompt, and is the way in for an
    /// account whose only factor is a security key, which a terminal cannot use.
    func stepUp(_ auth: AuthClient, after session: Session) async throws -> Session {
        let level = try await auth.mfa.assuranceLevel()
        guard level.current == .aal1, level.next == .aal2 else { return session }
        let factors = try await auth.mfa.listFactors()
        if let factor = factors.totp.first {
            print("This account has a second factor (\(factor.friendlyName ?? "an authenticator app")).")
            while true {
                let code = Terminal.readLine(prompt: "Authenticator code (or a recovery code): ")
                do {
                    if Self.isRecoveryCode(code) { return try await auth.mfa.verifyRecoveryCode(code) }
                    return try await auth.mfa.challengeAndVerify(factorID: factor.id, code: code)
                } catch let error as LatchkeyError where error.isMFAVerificationFailed {
                    print("That code is not right. Try again.")
                }
            }
        }
        guard let phone = factors.phone.first else {
            guard !factors.webauthn.isEmpty else { return session }
            print("This account's second factor is a security key, which a terminal cannot use: enter one of your recovery codes.")
            while true {
                let code = Terminal.readLine(prompt: "Recovery code: ")
                do {
                    return try await auth.mfa.verifyRecoveryCode(code)
                } catch let error as LatchkeyError where error.isMFAVerificationFailed {
                    print("That code is not right. Try again.")
                }
            }
        }
        var challenge = try await auth.mfa.challenge(factorID: phone.id)
        print("A code was sent to \(phone.phone ?? "the account's phone"). Press Enter on an empty line for a new code.")
        while true {
            let code = Terminal.readLine(prompt: "Code: ")
            do {
                if code.isEmpty {
                    challenge = try await auth.mfa.challenge(factorID: phone.id)
                    print("A new code was sent.")
                    continue
                }
                if Self.isRecoveryCode(code) { return try await auth.mfa.verifyRecoveryCode(code) }
                return try await auth.mfa.verify(factorID: phone.id, challengeID: challenge.id, code: code)
            } catch let error as LatchkeyError where error.isMFAVerificationFailed {
                print("That code is not right. Try again.")
            } catch let error as LatchkeyError where error.isRateLimited {
                print("\(error.message) Try again then.")
            }
        }
    }

    func signInWithCode(_ auth: AuthClient) async throws -> Session {
        var state = try await auth.signInWithEmailCode(email: email)
        print("A \(state.codeLength)-digit code was sent to \(state.sentTo). Press Enter on an empty line for a new code.")
        while true {
            let code = Terminal.readLine(prompt: "Code: ")
            if code.isEmpty {
                state = try await state.resend()
                print("A new code was sent to \(state.sentTo).")
                continue
            }
            do {
                return try await state.submit(code: code)
            } catch let error as LatchkeyError {
                guard let retry = error.retryState else { throw error }
                state = retry
                let left = state.attemptsRemaining.map { " (\($0) attempts left)" } ?? ""
                print("That code is not right\(left). Try again.")
            }
        }
    }

    /// A recovery code (`xxxxx-xxxxx`, letters among its characters), not a factor's digits.
    static func isRecoveryCode(_ text: String) -> Bool {
        text.contains { $0.isLetter }
    }
}

/// A message for people, without a stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Prompts on the terminal.
enum Terminal {
    static func readLine(prompt: String) -> String {
        print(prompt, terminator: "")
        fflush(nil)
        return Swift.readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
    }

    /// Reads a line with echo turned off (when standard input is a terminal).
    static func readSecret(prompt: String) throws -> String {
        print(prompt, terminator: "")
        fflush(nil)
        var original = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &original) == 0
        if isTerminal {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &original)
                print("")
            }
        }
        guard let line = Swift.readLine(strippingNewline: true) else { throw CLIError("No password given") }
        return line
    }
}
