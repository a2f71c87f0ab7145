import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        try await database.lookup { db in
            guard
                let user = try await db.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [SQLValue(userID)]).first
                    .flatMap(Self.user)
            else { return AccountRecords(user: nil, session: nil, identities: [], factors: []) }
            let session = try await sessionID.asyncFlatMap { id in
                try await db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?", [SQLValue(id)]).first.flatMap(Self.session)
            }
            return AccountRecords(
                user: user, session: session, identities: try await Self.identities(userID: userID, db),
                factors: try await Self.factors(userID: userID, db))
        }
    }
}

extension Optional {
    fileprivate func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
