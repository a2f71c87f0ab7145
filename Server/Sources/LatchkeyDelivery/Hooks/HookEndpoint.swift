import LatchkeyCore

/// Where a hook is called and what it is signed with, checked once at start as GoTrue checks it:
/// `https://…` anywhere, `http://` only to this machine (`localhost`, `127.0.0.1`, `::1`,
/// `host.docker.internal`), and at least one `v1,whsec_…` secret.
public struct HookEndpoint: Sendable, Equatable {
    public let url: String
    public let secrets: [WebhookSecret]

    /// Why a hook's settings cannot be used.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(uri: String, secrets: String) throws {
        if let problem = EndpointURL.problem(uri) { throw Invalid(description: problem) }
        guard let parsed = WebhookSecret.list(secrets) else {
            throw Invalid(
                description: "a secret is not of the form v1,whsec_<base64> (asymmetric v1a secrets are not supported)")
        }
        guard !parsed.isEmpty else { throw Invalid(description: "at least one secret (v1,whsec_<base64>) is required") }
        self.url = uri
        self.secrets = parsed
    }
}
