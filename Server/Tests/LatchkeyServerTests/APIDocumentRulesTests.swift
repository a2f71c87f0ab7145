import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// Rules `openapi.json` states that schemathesis (in the compat suite) cannot reach on its own:
/// GoTrue's reading of `/otp` and `/magiclink`, query parameters given twice or empty, and the
/// line between `400` (the request does not match the document) and `422` (it does, but its
/// content cannot be used).
@Suite struct APIDocumentRulesTests {
    @Test func otpTakesAnEmailOrAPhoneAsGoTrueDoes() async throws {
        try await TestServer().run { client, app async throws in
            let refusals = [
                (#"{"email":"ada@example.com","phone":"+15551230000"}"#, "Only an email address or phone number should be provided"),
                (#"{"email":"ada@example.com","channel":"sms"}"#, "Channel should only be specified with Phone OTP"),
                (#"{}"#, "An email address is required"),
                (#"{"email":"","phone":""}"#, "An email address is required"),
            ]
            for (body, message) in refusals {
                let response = try await client.send(.post, "/otp", json: body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try response.decode(APIErrorBody.self).message == message, "\(body)")
            }
            // An empty string counts as absent; an empty channel is the default.
            let phone = try await client.send(.post, "/otp", json: #"{"email":"","phone":"+15551230001","channel":""}"#)
            #expect(phone.status == .ok)
            #expect(try phone.decode(OTPResponse.self).channel == "sms")
            let email = try await client.send(.post, "/otp", json: #"{"email":"ada@example.com","phone":"","channel":""}"#)
            #expect(try email.decode(OTPResponse.self).channel == "email")
            // /magiclink reads the email only.
            let link = try await client.send(.post, "/magiclink", json: #"{"email":"bob@example.com","phone":"+15551230002"}"#)
            #expect(try link.decode(OTPResponse.self).channel == "email")
            #expect(try await app.store.user(phone: "15551230002") == nil)
        }
    }

    @Test func aQueryParameterGivenTwiceIsRefusedAndAnEmptyOneIsAbsent() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for uri in ["/admin/users?page=1&page=2", "/admin/audit?per_page=5&per_page=1000000", "/verify?type=signup&token=a&type=email"]
            {
                let response = try await client.send(.get, uri, bearer: admin)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.errorCode == "validation_failed", "\(uri)")
            }
            // supabase-js sends `page=&per_page=` when the caller gave none: GoTrue's defaults.
            for uri in ["/admin/users?page=&per_page=", "/admin/users?is_anonymous=", "/admin/audit?user_id=&action="] {
                #expect(try await client.send(.get, uri, bearer: admin).status == .ok, "\(uri)")
            }
            for uri in ["/admin/users?page=0", "/admin/users?page=1000001", "/admin/users?per_page=x", "/admin/audit?user_id=nope"] {
                #expect(try await client.send(.get, uri, bearer: admin).status == .badRequest, "\(uri)")
            }
        }
    }

    @Test func contentTheDocumentCannotDescribeIs422() async throws {
        try await TestServer(configure: AnonymousUserTests.enabled).run { client, app async throws in
            // An anonymous user's password needs an address in the same request: the user's state.
            let anonymous = try await client.send(.post, "/signup", json: "{}")
            let token = try anonymous.decode(Session.self).accessToken
            let password = try await client.send(.put, "/user", json: #"{"password":"correct horse battery staple"}"#, bearer: token)
            #expect(password.status == .unprocessableContent)
            #expect(password.errorCode == "validation_failed")
            let admin = try await AdminUserTests.serviceRole(app)
            // A bcrypt hash's cost is ASCII digits, as the document's pattern says.
            let arabic = "$2a$١٠$" + String(repeating: "a", count: 53)
            let hash = try await client.send(
                .post, "/admin/users", json: #"{"email":"h@example.com","password_hash":"\#(arabic)"}"#, bearer: admin)
            #expect(hash.status == .badRequest)
        }
    }
}
