import Foundation
import LatchkeyAPI
import Logging

extension AuthService {
    /// `POST /recover`: emails a password-reset code and link to a known address.
    ///
    /// Known and unknown addresses get the same answer at the same speed: after validating the
    /// request the work continues in the background, and a cooldown or a send limit is logged,
    /// not answered, so the response never tells whether an account exists.
    public func recover(email raw: String?, challenge rawChallenge: (String?, String?), redirectTo: String?, client: ClientInfo)
        async throws -> OTPResponse
    {
        try await hitSendLimits(client)
        let email = try canonicalEmail(raw)
        let challenge = try PKCEChallenge.parse(challenge: rawChallenge.0, method: rawChallenge.1)
        let service = self
        Task {
            do {
                guard let user = try await service.store.user(email: email), !user.isBanned(at: service.time.now()) else { return }
                try await service.sendCode(to: user, kind: .recovery, redirectTo: redirectTo, challenge: challenge)
            } catch {
                service.logger.warning("password recovery email not sent", metadata: ["reason": "\(error)"])
            }
        }
        return codeInfo(sentTo: email)
    }

    /// `POST /magiclink` (GoTrue's legacy endpoint): like `POST /otp`, creating unknown users.
    public func magicLink(_ request: OTPRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        var request = request
        // GoTrue's `/magiclink` reads an email only.
        request.createUser = true
        request.intent = nil
        request.phone = nil
        request.channel = nil
        return try await sendOTP(request, redirectTo: redirectTo, client: client)
    }
}
