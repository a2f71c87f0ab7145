import HTTPTypes
import Hummingbird
import LatchkeyCore

/// `/sso` and its SAML paths. Latchkey offers no SAML single sign-on; these answer as GoTrue does
/// with SAML off (`404 saml_provider_disabled`), so clients that probe them get the answer
/// they expect rather than an unknown path.
struct SSOController {
    func register(_ routes: inout RouteRegistrar) {
        let paths: [(HTTPRequest.Method, String)] = [(.post, "/sso"), (.get, "/sso/saml/metadata"), (.post, "/sso/saml/acs")]
        for (method, path) in paths {
            routes.on(method, path) { _, _ -> Response in throw AuthError.samlDisabled }
        }
    }
}
