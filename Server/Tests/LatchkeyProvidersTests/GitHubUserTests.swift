import LatchkeyAPI
import LatchkeyCore
import Testing

@testable import LatchkeyProviders

/// GitHub's user and emails as an identity: the primary address only, verified only when GitHub
/// says so, and a profile without an id refused.
@Suite struct GitHubUserTests {
    static let api = "https://api.github.com"

    @Test func thePrimaryVerifiedAddressIsTheUsers() throws {
        let user = try GitHubUser.read(
            profile: ["id": 42, "login": "ada", "name": "Ada Lovelace", "avatar_url": "https://a.example/ada"],
            emails: [
                ["email": "old@example.com", "verified": true, "primary": false],
                ["email": "Ada@Example.com", "verified": true, "primary": true],
            ], api: Self.api)
        #expect(user.subject == "42" && user.email == "ada@example.com" && user.emailVerified)
        #expect(user.identityData["user_name"] == "ada" && user.identityData["full_name"] == "Ada Lovelace")
        #expect(user.identityData["iss"] == .string(Self.api) && user.identityData["provider_id"] == "42")
    }

    @Test func unverifiedOrMissingPrimariesVouchForNothing() throws {
        let unverified = try GitHubUser.read(
            profile: ["id": 7], emails: [["email": "eve@example.com", "verified": false, "primary": true]], api: Self.api)
        #expect(unverified.email == "eve@example.com" && !unverified.emailVerified)
        let none = try GitHubUser.read(
            profile: ["id": 8], emails: [["email": "x@example.com", "verified": true, "primary": false]], api: Self.api)
        #expect(none.email == nil && !none.emailVerified && none.identityData["email_verified"] == false)
        #expect(throws: ProviderExchangeError.self) { try GitHubUser.read(profile: ["login": "ghost"], emails: [], api: Self.api) }
    }
}
