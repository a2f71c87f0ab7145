/// A user with a session, identities and factors, read together from one snapshot: what a
/// signed-in request and a session answer need, in one read.
public struct AccountRecords: Sendable {
    /// The user; `nil` when there is none with that id (then everything else is empty).
    public var user: UserRecord?
    /// The session asked for, when it exists (whoever it belongs to).
    public var session: SessionRecord?
    public var identities: [IdentityRecord]
    public var factors: [FactorRecord]

    public init(user: UserRecord?, session: SessionRecord?, identities: [IdentityRecord], factors: [FactorRecord]) {
        self.user = user
        self.session = session
        self.identities = identities
        self.factors = factors
    }
}
