import Crypto
import Foundation
import LatchkeyAPI

/// How emailed links bring the user back to the app.
public enum FlowType: Sendable {
    /// The link's redirect carries a one-time code that only this device, holding the verifier,
    /// can exchange (RFC 7636). Tokens never appear in a URL. The default.
    case pkce
    /// The link's redirect carries the tokens in the URL fragment (GoTrue's implicit flow).
    case implicit
}

/// PKCE verifiers and challenges, as supabase-swift makes them: 64 random bytes in base64url
/// (86 characters), challenged with S256.
enum PKCE {
    static func makeVerifier() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }
}

/// A verifier kept for a request that sent a link, until its link is used (or it is a day old).
struct PendingVerifier: Codable, Equatable {
    var verifier: String
    var created: Date

    /// At most this many are kept (the newest), each at most a day: a link lives an hour by default.
    static let limit = 8
    static let lifetime: TimeInterval = 86_400

    /// The stored list, newest first; a verifier stored by an earlier SDK (the bare string) is one.
    static func decode(_ data: Data?, now: Date) -> [PendingVerifier] {
        guard let data, !data.isEmpty else { return [] }
        let list =
            (try? JSONDecoder().decode([PendingVerifier].self, from: data))
            ?? [PendingVerifier(verifier: String(decoding: data, as: UTF8.self), created: now)]
        return list.filter { !$0.verifier.isEmpty && now.timeIntervalSince($0.created) < lifetime }
    }
}

extension AuthClient {
    var verifierKey: String { configuration.storageKey + "-code-verifier" }

    /// A new challenge for a request that sends a link, with its verifier kept in storage beside
    /// those of earlier requests whose links are still out, or `nil` for the implicit flow.
    func newChallenge(always: Bool = false) async -> (challenge: String, method: String)? {
        guard always || configuration.flowType == .pkce else { return nil }
        let verifier = PKCE.makeVerifier()
        let now = now
        await updateVerifiers { list in
            Array(([PendingVerifier(verifier: verifier, created: now)] + list).prefix(PendingVerifier.limit))
        }
        return (PKCE.challenge(for: verifier), "s256")
    }

    /// Changes the stored verifiers one change at a time (a change reads what the one before
    /// wrote); a storage that cannot be written loses the change, as a link then asks for its code.
    func updateVerifiers(_ change: @escaping @Sendable ([PendingVerifier]) -> [PendingVerifier]) async {
        let previous = verifierUpdate
        let update = Task {
            await previous?.value
            let now = self.now
            let stored = try? await configuration.storage.load(key: verifierKey)
            let list = change(PendingVerifier.decode(stored, now: now))
            if list.isEmpty {
                try? await configuration.storage.remove(key: verifierKey)
            } else if let data = try? JSONEncoder().encode(list) {
                try? await configuration.storage.save(data, key: verifierKey)
            }
        }
        verifierUpdate = update
        await update.value
    }

    /// Exchanges the code a PKCE link delivered for a session. The code says nothing of which
    /// request it answers, so the kept verifiers are tried newest first: a wrong one is refused
    /// (`bad_code_verifier`) and leaves the code unspent; the one that fits is forgotten.
    func exchange(code: String) async throws -> Session {
        await updateVerifiers { $0 }
        let pending = PendingVerifier.decode(try await configuration.storage.load(key: verifierKey), now: now)
        for candidate in pending {
            let session: Session
            do {
                session = try await api.send(
                    try api.request(
                        "POST", "token", query: ["grant_type": "pkce"],
                        body: PKCEGrantRequest(authCode: code, codeVerifier: candidate.verifier)),
                    as: Session.self)
            } catch let error as LatchkeyError where error.code == .badCodeVerifier {
                continue
            }
            await updateVerifiers { $0.filter { $0.verifier != candidate.verifier } }
            await setSession(session, event: .signedIn)
            return session
        }
        throw LatchkeyError(
            code: .badCodeVerifier,
            message: "This link was requested on another device or app install: enter the code from the email instead")
    }
}
