import Foundation

/// What the OAuth server's clients need from storage. A deleted client is kept (GoTrue's soft
/// delete) but no read returns it.
public protocol OAuthClientStore: Sendable {
    /// Every client not deleted, newest first.
    func oauthClients() async throws -> [OAuthClientRecord]
    /// The client, unless there is none or it was deleted.
    func oauthClient(id: UUID) async throws -> OAuthClientRecord?
    func insertOAuthClient(_ client: OAuthClientRecord) async throws
    /// Writes `client` while the stored one, not deleted, was last updated at `seen`: `false`
    /// otherwise (another change came first, or it was deleted), and nothing is written.
    func updateOAuthClient(_ client: OAuthClientRecord, ifUpdatedAt seen: Date) async throws -> Bool
    /// Marks the client deleted at `date`; `false` when there is none, or it was deleted already.
    func deleteOAuthClient(id: UUID, at date: Date) async throws -> Bool
}
