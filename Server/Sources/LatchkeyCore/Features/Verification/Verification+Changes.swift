import Foundation
import LatchkeyAPI

extension Verification {
    /// A code typed with a phone number: type `sms` confirms the number and signs in;
    /// `phone_change` moves the user waiting for that number to it.
    func verifyPhone(_ raw: String?, type: VerificationType, token: String, client: ClientInfo) async throws -> RedemptionOutcome {
        let phone = try PhoneNumber.requestNumber(raw)
        guard token.utf8.count <= 16 else { throw AuthError.otpInvalid }
        if type == .phoneChange {
            do {
                let waiting = try await store.users(newPhone: phone).map { ($0.id, OneTimeTokenKind.phoneChange) }
                return try await firstRedeemed(waiting, token: token, completion: .phoneChange, client: client)
            } catch let error as StoreError where error.isDuplicate {
                throw AuthError.phoneExists
            }
        }
        guard let user = try await store.user(phone: phone) else { return .notFound }
        return try await redeem(rules(.newest(userID: user.id, kinds: [.sms]), .code(token), .phoneSignIn, client))
    }

    /// `type=email_change` with an address and a code: the address is either the current one
    /// (whose user is changing it) or the new one (that users wait to move to), and the code
    /// the one sent there.
    func verifyEmailChange(email: String, token: String, client: ClientInfo) async throws -> RedemptionOutcome {
        var candidates: [(UUID, OneTimeTokenKind)] = []
        if let current = try await store.user(email: email), current.newEmail != nil {
            candidates.append((current.id, .emailChangeCurrent))
        }
        for pending in try await store.users(newEmail: email) { candidates.append((pending.id, .emailChangeNew)) }
        do {
            return try await firstRedeemed(candidates, token: token, completion: .emailChange, client: client)
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError.emailExists
        }
    }

    /// Tries the code against each candidate's newest token of its kind, in order (several users
    /// may wait to move to one address or number; the code says which): the first redemption,
    /// the first rejection, else the last refusal, else not found.
    func firstRedeemed(
        _ candidates: [(UUID, OneTimeTokenKind)], token: String, completion: CodeRedemption.Completion, client: ClientInfo
    ) async throws -> RedemptionOutcome {
        var refused: RedemptionOutcome?
        for (userID, kind) in candidates {
            let outcome = try await redeem(rules(.newest(userID: userID, kinds: [kind]), .code(token), completion, client))
            switch outcome {
            case .redeemed, .rejected: return outcome
            case .notFound: continue
            case .expired, .exhausted, .mismatch, .needsNotice: refused = outcome
            }
        }
        return refused ?? .notFound
    }
}
