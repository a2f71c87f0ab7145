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
}
