import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        if database.aggregatesReads { return try await aggregatedAccount(userID: userID, sessionID: sessionID) }
        return try await database.lookup { db in
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

extension SQLAuthStore {
    /// A user's identities and factors as JSON columns beside the user's row (PostgreSQL's
    /// `json_build_object` of each row's columns, read back into rows by ``jsonRows(_:)``).
    static let aggregatedHoldings = """
        (SELECT json_agg(json_build_object(\(pairs(identityColumns))) ORDER BY created_at)::text \
        FROM identities WHERE user_id = users.id) AS account_identities, \
        (SELECT json_agg(json_build_object(\(pairs(factorColumns))) ORDER BY created_at, id)::text \
        FROM mfa_factors WHERE user_id = users.id) AS account_factors
        """

    /// The account as one statement: the user's row with its identities, factors and the session.
    static let aggregatedAccountSQL = """
        SELECT \(userColumns), \(aggregatedHoldings), \
        (SELECT json_build_object(\(pairs(sessionColumns)))::text FROM sessions WHERE id = ?) AS account_session \
        FROM users WHERE id = ?
        """

    /// A session's user with its identities and factors (a refresh's first read; the caller adds
    /// the lock clause).
    static let aggregatedSessionOwnerSQL = """
        SELECT \(userColumns), \(aggregatedHoldings) FROM users WHERE id = (SELECT user_id FROM sessions WHERE id = ?)
        """

    /// The account in a row of one of the aggregating statements.
    static func account(aggregated row: SQLRow, session: SessionRecord?) -> AccountRecords {
        AccountRecords(
            user: Self.user(from: row), session: session,
            identities: row.string("account_identities").flatMap(Self.jsonRows)?.compactMap(Self.identity) ?? [],
            factors: row.string("account_factors").flatMap(Self.jsonRows)?.compactMap(Self.factor) ?? [])
    }

    /// `'a', a, 'b', b` for the columns `a, b`.
    private static func pairs(_ columns: String) -> String {
        columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.map { "'\($0)', \($0)" }
            .joined(separator: ", ")
    }

    func aggregatedAccount(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        let binds = [SQLValue(sessionID), SQLValue(userID)]
        let row = try await database.lookup { try await $0.query(Self.aggregatedAccountSQL, binds) }.first
        guard let row else { return AccountRecords(user: nil, session: nil, identities: [], factors: []) }
        let session = row.string("account_session").flatMap { Self.jsonRows("[\($0)]") }?.first.flatMap(Self.session)
        return Self.account(aggregated: row, session: session)
    }

    /// Rows from a JSON array of objects of column values (text, whole numbers, nulls), as the
    /// driver would have answered them.
    static func jsonRows(_ text: String) -> [SQLRow]? {
        guard case .array(let items)? = JSONText.decodeObject("{\"rows\":\(text)}")?["rows"] else { return nil }
        return items.compactMap { item in
            guard case .object(let columns) = item else { return nil }
            return SQLRow(
                values: columns.mapValues { value in
                    switch value {
                    case .string(let text): .text(text)
                    case .number(let number): Int64(exactly: number).map(SQLValue.int) ?? .text(String(number))
                    case .bool(let flag): .int(flag ? 1 : 0)
                    case .null, .array, .object: .null
                    }
                })
        }
    }
}

extension Optional {
    fileprivate func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
