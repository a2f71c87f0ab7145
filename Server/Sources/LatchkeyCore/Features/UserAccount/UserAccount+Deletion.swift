import Foundation
import LatchkeyAPI

extension UserAccount {
    /// How recent a sign-in lets a user delete their account without a reauthentication code.
    public static let recentSignIn: TimeInterval = 300

    /// `DELETE /user`, a Latchkey extension (GoTrue has none; Apple requires apps that create
    /// accounts to let users delete them): the signed-in user deletes their account and
    /// everything that belongs to it (sessions, identities, factors, passkeys, device keys,
    /// vaults, the signer's backup), recorded as `user_deleted`.
    ///
    /// It asks for a recent authentication: a session signed in within the last five minutes,
    /// or a `nonce` from `GET /reauthenticate` (the code emailed or texted), spent here; and the
    /// second factor when the user has one. An anonymous user, who has nothing to reauthenticate
    /// with, needs neither. The deletion lands only on the user as read and while the caller's
    /// session lasts: a password change or a sign-out everywhere in between refuses it. Once it
    /// has, the app's access at Apple (Sign in with Apple's refresh token) is revoked.
    public func deleteAccount(principal: Principal, nonce: String?) async throws {
        guard !principal.isAdmin, let session = principal.session else {
            throw AuthError(.noAuthorization, "Only a user's own session can delete the account: use DELETE /admin/users/{id}")
        }
        try await SecondFactorGate(factors: store).require(principal, to: "delete the account")
        let recent = time.now().timeIntervalSince(session.createdAt) < Self.recentSignIn
        var user = principal.user
        if !user.isAnonymous, !recent {
            guard let nonce, !nonce.isEmpty else {
                throw AuthError(
                    .reauthenticationNeeded,
                    "Deleting the account needs a recent sign-in: sign in again, or send the nonce from GET /reauthenticate")
            }
            try await spendNonce(nonce, userID: user.id)
            // Spending the nonce wrote the user: delete the copy as it is now.
            guard let fresh = try await store.user(id: user.id) else { throw AuthError.userNotFound }
            user = fresh
        }
        let event = events.event(.userDeleted, user: user, details: ["by": "self"])
        // Read before the user goes (they go with it), revoked once it is gone.
        let held = await grants?.held(by: user.id) ?? []
        guard
            try await store.deleteAccount(userID: user.id, version: user.version, sessionID: session.id, audit: [event])
        else {
            throw AuthError(.conflict, "The account changed while it was being deleted (a new password, a sign-out): sign in again")
        }
        await grants?.revoke(held)
    }
}
