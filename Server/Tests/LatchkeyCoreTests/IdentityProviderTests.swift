import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Which issuers a provider signs as: Microsoft's v2.0 issuer of any tenant (and nothing that
/// only looks like one), Apple's two, exactly.
@Suite struct IdentityProviderTests {
    @Test(arguments: [
        ("https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0", true),
        ("https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0/", true),
        ("https://login.microsoftonline.com/common/v2.0", true),
        ("https://login.microsoftonline.com//v2.0", false),
        ("https://login.microsoftonline.com/tenant/v1.0", false),
        ("https://sts.windows.net/tenant/", false),
        ("https://login.microsoftonline.com.evil.example/tenant/v2.0", false),
        ("https://login.microsoftonline.com/ten ant/v2.0", false),
        ("https://login.microsoftonline.com/tenant/v2.0/extra", false),
        ("http://login.microsoftonline.com/tenant/v2.0", false),
    ])
    func azureAcceptsAnyTenantsV2Issuer(_ issuer: String, _ accepted: Bool) {
        let azure = IdentityProvider(name: "azure", enabled: true, issuers: .azureTenants, claims: .azure, clientIDs: ["app"])
        #expect(azure.accepts(issuer: issuer) == accepted)
    }

    @Test func appleAcceptsItsTwoIssuersOnly() {
        let apple = IdentityProvider(
            name: "apple", enabled: true, issuers: .exact(IdentityProvider.appleIssuers), claims: .apple, clientIDs: ["app"])
        #expect(apple.accepts(issuer: "https://appleid.apple.com") && apple.accepts(issuer: "https://account.apple.com"))
        #expect(!apple.accepts(issuer: "https://appleid.apple.com/") && !apple.accepts(issuer: "appleid.apple.com"))
    }

    /// nOAuth: with every tenant accepted, any tenant's administrator can put any address in
    /// `email`; only `xms_edov: true` vouches for it. With the operator's own tenant, an absent
    /// `xms_edov` is taken as verified, as GoTrue takes it.
    @Test(arguments: [
        (JSONValue?.none, IdentityProvider.Claims.azureAnyTenant, false),
        (JSONValue?.none, IdentityProvider.Claims.azure, true),
        (JSONValue.bool(true), IdentityProvider.Claims.azureAnyTenant, true),
        (JSONValue.string("1"), IdentityProvider.Claims.azureAnyTenant, true),
        (JSONValue.bool(false), IdentityProvider.Claims.azure, false),
        (JSONValue.bool(false), IdentityProvider.Claims.azureAnyTenant, false),
    ])
    func anyTenantsAddressIsVerifiedOnlyByXmsEdov(_ edov: JSONValue?, _ kind: IdentityProvider.Claims, _ verified: Bool) throws {
        var claims: [String: JSONValue] = ["sub": "s", "iss": "https://login.microsoftonline.com/t/v2.0", "email": "ada@example.com"]
        if let edov { claims["xms_edov"] = edov }
        let user = try #require(ProviderUser(claims: claims, as: kind))
        #expect(user.emailVerified == verified)
    }
}
