import Foundation
import LatchkeyAPI
import Testing

@Suite struct WireTypesTests {
    @Test func userDecodesGoTrueJSONAndEncodesLowercaseIDs() throws {
        let json = """
            {"id":"8E1A0C52-6B8B-4C69-9F21-0D6C4D1D5E11","aud":"authenticated","role":"authenticated","email":"a@b.co",
             "phone":"","created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00.123456Z",
             "app_metadata":{"provider":"email"},"user_metadata":{"n":1,"x":null}}
            """
        let user = try WireJSON.makeDecoder().decode(User.self, from: Data(json.utf8))
        #expect(user.userMetadata["n"] == 1)
        #expect(user.userMetadata["x"] == .null)
        let encoded = String(decoding: try WireJSON.makeEncoder().encode(user), as: UTF8.self)
        #expect(encoded.contains("\"id\":\"8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11\""))
        #expect(!encoded.contains("email_confirmed_at"))
    }

    @Test func errorCodesAreAnOpenSet() throws {
        let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(#"{"code":"brand_new_code","message":"m"}"#.utf8))
        #expect(body.code == ErrorCode("brand_new_code"))
        #expect(body.code != .invalidCredentials)
    }

    @Test func apiVersionSelectsTheDialect() {
        #expect(APIVersion.usesStructuredErrors("2024-01-01"))
        #expect(APIVersion.usesStructuredErrors(" 2025-06-01 "))
        #expect(!APIVersion.usesStructuredErrors(nil))
        #expect(!APIVersion.usesStructuredErrors("2023-12-31"))
        #expect(!APIVersion.usesStructuredErrors("garbage"))
    }

    @Test func sessionRoundTrips() throws {
        let user = User(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "a@b.co", phone: "", createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 0))
        let session = Session(accessToken: "a", expiresIn: 3600, expiresAt: 42, refreshToken: "r", user: user)
        let data = try WireJSON.makeEncoder().encode(session)
        #expect(try WireJSON.makeDecoder().decode(Session.self, from: data) == session)
    }
}
