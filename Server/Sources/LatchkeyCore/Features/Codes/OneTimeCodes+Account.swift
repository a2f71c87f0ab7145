import Foundation
import LatchkeyAPI
import Logging

extension OneTimeCodes {
    /// `POST /recover`: emails a password-reset code and link to a known address.
    ///
    /// Known and unknown addresses get the same answer at the same speed: after validating the
    /// request the work continues in the background, and a cooldown or a send limit is logged,
    /// not answered, so the response never tells whether an account exists. Returns the answer
    /// and the background work (tests wait for it; the server does not).
    public func recover(email raw: String?, challenge rawChallenge: (String?, String?), redirectTo: String?, client: ClientInfo)
        async throws -> (answer: OTPResponse, sending: Task<Void, Never>)
    {
        try await limiter.hit(codes.sendLimits(client))
        let email = try EmailAddress.requestAddress(raw)
        let challenge = try PKCEChallenge.parse(challenge: rawChallenge.0, method: rawChallenge.1)
        let (store, codes, time) = (store, codes, time)
        let work = Task {
            do {
                guard let user = try await store.user(email: email), !user.isBanned(at: time.now()) else { return }
                try await codes.send(to: user, kind: .recovery, redirectTo: redirectTo, challenge: challenge)
            } catch {
                codes.logger.warning("password recovery email not sent", metadata: ["reason": "\(error)"])
            }
        }
        return (answer: codes.info(sentTo: email), sending: work)
    }

    /// `GET /reauthenticate`: emails the signed-in user a code to send as `nonce` with a
    /// sensitive change.
    public func reauthenticate(principal: Principal, client: ClientInfo) async throws -> OTPResponse {
        try await limiter.hit(codes.sendLimits(client))
        let user = principal.user
        guard let email = user.email else {
            throw AuthError(.validationFailed, "Reauthentication requires the user to have an email address")
        }
        let now = time.now()
        try codes.checkCooldown(lastSent: user.reauthenticationSentAt, now: now)
        try await codes.countEmail(to: email)
        try await store.onFreshCopies(of: user) { user in
            try codes.checkCooldown(lastSent: user.reauthenticationSentAt, now: now)
            let issued = codes.make(for: user, kind: .reauthentication, address: email, redirectTo: nil, challenge: nil, now: now)
            var updated = user
            updated.reauthenticationSentAt = now
            updated.updatedAt = now
            let mail = codes.records.notices.composer.email(.reauthentication, to: email, user: user, code: issued.code)
            try await store.replaceOneTimeTokens(
                [issued.record], user: updated, outbox: try codes.records.notices.rows([mail]),
                audit: codes.sentEvents([issued.record], user: updated))
        }
        codes.records.notices.notify()
        return codes.info(sentTo: email)
    }
}
