import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The hosted sign-in pages (`/ui/…`, the role of Auth0's Lock): plain HTML forms over the same
/// use cases as the API, so the same rate limits, lock-outs and refusals apply. An app opens
/// `/ui/sign-in?redirect_to=…&code_challenge=…&code_challenge_method=s256` (in
/// `ASWebAuthenticationSession`); the pages end with a 303 to `redirect_to?code=…`, which the app
/// exchanges with its verifier at `POST /token?grant_type=pkce`.
struct HostedPagesController {
    struct UseCases {
        let codes: OneTimeCodes
        let verification: Verification
        let passwordSignIn: PasswordSignIn
        let signUp: SignUp
        let userAccount: UserAccount
        let passwordPolicy: PasswordPolicy
        let passkeys: Passkeys
        let sessions: Sessions
    }

    /// What the pages do with a session once a first factor gave one: read it back from its
    /// token, raise it with the user's second factor, and hand it to the app.
    struct Sessions {
        let authenticator: Authenticator
        let mfa: MFA
        let handOff: SessionHandOff
        /// The consent page's sign-in code, exchanged with the verifier it sealed.
        let authCode: AuthCodeExchange
        /// The OAuth server whose requests `/ui/consent` answers, when it is on.
        let oauthServer: OAuthServer?
    }

    /// What the pages show and offer.
    struct Options {
        var passkeys: Bool
        var disableSignup: Bool
        var passwordMinLength: Int
        var codeMinutes: Int
        /// Providers with a redirect flow: (name, label).
        var providers: [(name: String, label: String)]
        /// The captcha widget the guarded forms carry, when captcha is on.
        var captcha: CaptchaSettings?
        /// `/ui/consent`'s address, when the OAuth server is on: sign-ins may come back to it.
        var consentPage: String?
    }

    let pages: PageRenderer
    let security: PageSecurity
    let redirects: RedirectPolicy
    let useCases: UseCases
    let options: Options
    /// GoTrue's captcha, on the forms whose API endpoints it guards.
    var captcha: CaptchaGate = .off

    /// The signed-in page's state: the session's access token (sealed in an `HttpOnly` cookie for
    /// ten minutes), the flow, and how the user signed in.
    struct SignedIn: Codable {
        var accessToken: String
        var email: String
        var flow: HostedFlow
        var method: String
    }

    static let signedInCookie = "lk_signed_in"
    /// The same state while the user's second factor is asked for (`/ui/second-factor`).
    static let secondFactorCookie = "lk_second_factor"

    func register(_ routes: inout RouteRegistrar) {
        for name in ["sign-in", "sign-up", "reset", "email-change"] {
            routes.on(.get, "/ui/\(name)") { request, _ in page(request, name) }
        }
        registerSignIn(&routes)
        registerSecondFactor(&routes)
        registerAccount(&routes)
        registerConsent(&routes)
    }

    /// A form page for the flow in the request's query.
    func page(_ request: Request, _ name: String) -> Response {
        let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a })
        let csrf = security.csrf(for: request)
        do {
            let flow = try HostedFlow.read(query, redirects: redirects, consentPage: options.consentPage)
            return render(name, title: Self.titles[name] ?? "", flow: flow, csrf: csrf.token, cookies: csrf.cookie.map { [$0] } ?? [])
        } catch {
            return refuse(error)
        }
    }

    /// `name` for `flow`, with the values every form page has.
    func render(
        _ name: String, title: String, flow: HostedFlow, csrf: String, values: [String: Any] = [:], error: String? = nil,
        status: HTTPResponse.Status = .ok, cookies: [String] = []
    ) -> Response {
        var context = values
        context["flow_fields"] = flow.hiddenFields(csrf: csrf)
        context["query"] = flow.query
        context["error"] = error
        context["passkeys"] = options.passkeys
        context["password_min"] = options.passwordMinLength
        context["minutes"] = options.codeMinutes
        let providers = options.providers.map { provider in
            ["label": provider.label, "url": "../authorize?provider=\(provider.name)&\(flow.query)"]
        }
        context["providers"] = providers
        context["has_providers"] = !providers.isEmpty
        context["captcha_widget"] = options.captcha.flatMap(PageRenderer.captchaWidget)
        let script: String? =
            switch name {
            case "sign-in" where options.passkeys: PageScripts.signIn
            case "continue" where options.passkeys: PageScripts.register
            case "second-factor" where values["key"] != nil: PageScripts.securityKey
            default: nil
            }
        return pages.response(
            name, title: title, values: context, status: status, script: script, formTarget: flow.redirectTo, cookies: cookies,
            captcha: options.captcha?.siteKey == nil ? nil : options.captcha?.provider)
    }

    /// The message page for a refusal.
    func refuse(_ refusal: PageRefusal) -> Response {
        pages.response("message", title: refusal.title, values: ["text": refusal.text], status: refusal.status)
    }

    /// A POST from one of the pages: its fields, after the CSRF check, and its flow.
    func form(_ request: Request, _ context: APIRequestContext) async throws(PageRefusal) -> (fields: [String: String], flow: HostedFlow) {
        let fields: [String: String]
        do {
            fields = try await FormBody.fields(of: request, context: context)
        } catch {
            throw PageRefusal(
                status: .badRequest, title: "Something went wrong", text: "The form could not be read. Go back and try again.")
        }
        try security.checkCSRF(request, token: fields["csrf"])
        return (fields, try HostedFlow.read(fields, redirects: redirects, consentPage: options.consentPage))
    }

    /// A posted form, read and checked: its fields, the app's flow, this browser's CSRF token.
    struct PostedForm {
        var fields: [String: String]
        var flow: HostedFlow
        var csrf: String

        var email: String { fields["email"] ?? "" }
        /// A code as typed, spaces around it dropped.
        var code: String { (fields["code"] ?? "").trimmingCharacters(in: .whitespaces) }
    }

    /// Each page's title.
    static let titles = [
        "sign-in": "Sign in", "sign-up": "Create your account", "code": "Enter your code", "check-email": "Check your email",
        "reset": "Reset your password", "reset-code": "Choose a new password", "email-change": "Confirm your new address",
        "continue": "You're signed in", "second-factor": "Two-step verification", "consent": "Allow access",
    ]

    /// Runs a POST: the form, then `body`; a refusal before the form is read is its own page.
    func post(_ request: Request, _ context: APIRequestContext, _ body: (PostedForm) async throws -> Response) async throws
        -> Response
    {
        do {
            let (fields, flow) = try await form(request, context)
            return try await body(PostedForm(fields: fields, flow: flow, csrf: security.csrf(for: request).token))
        } catch let refusal as PageRefusal {
            return refuse(refusal)
        }
    }

    /// The captcha of a form whose API endpoint GoTrue guards: the widget's field, checked with
    /// the provider (`captcha_failed` when missing or refused, shown on the form).
    func checkCaptcha(_ form: PostedForm, _ context: APIRequestContext) async throws {
        guard let provider = options.captcha?.provider else { return }
        try await captcha.check(form.fields[PageRenderer.captchaField(provider)], client: context.client)
    }

    /// `page` again for a posted form (its address kept), saying what `error` means to a person.
    func show(_ page: String, _ form: PostedForm, values: [String: Any] = [:], error: AuthError? = nil) -> Response {
        render(
            page, title: Self.titles[page] ?? "", flow: form.flow, csrf: form.csrf,
            values: values.merging(["email": form.email]) { own, _ in own }, error: error.map(Self.text),
            status: error.map(Self.status) ?? .ok)
    }

    /// Ends a sign-in: first the user's second factor, when they have a verified one and the
    /// session has not used it (`raised` is false); then the page that offers a passkey (when
    /// passkeys are on and the user did not just use one), else straight back to the app with a
    /// code for the session.
    func finish(_ session: Session, method: String, flow: HostedFlow, raised: Bool = false) async throws -> Response {
        if !raised, session.user.factors?.contains(where: { $0.status == .verified }) == true {
            let state = SignedIn(accessToken: session.accessToken, email: session.user.email, flow: flow, method: method)
            let cookie = security.setCookie(Self.secondFactorCookie, try security.seal(state, name: Self.secondFactorCookie), maxAge: 600)
            return Response(
                status: .seeOther,
                headers: [.location: "second-factor", .cacheControl: "no-store", .referrerPolicy: "no-referrer", .setCookie: cookie])
        }
        if options.passkeys, method != "passkey" {
            let state = SignedIn(accessToken: session.accessToken, email: session.user.email, flow: flow, method: method)
            let cookie = security.setCookie(Self.signedInCookie, try security.seal(state, name: Self.signedInCookie), maxAge: 600)
            return Response(
                status: .seeOther,
                headers: [.location: "continue", .cacheControl: "no-store", .referrerPolicy: "no-referrer", .setCookie: cookie])
        }
        let code = try await useCases.sessions.handOff.code(for: session, challenge: flow.challenge, method: method)
        return BrowserRedirect.redirect(to: flow.redirectTo, query: "code=\(code)")
    }
}

extension HostedPagesController.Options {
    /// What the pages offer under `configuration`.
    init(_ configuration: AuthConfiguration, captcha: CaptchaSettings? = nil) {
        let labels = ["apple": "Apple", "google": "Google", "azure": "Microsoft", "keycloak": "Keycloak", "github": "GitHub"]
        self.init(
            passkeys: configuration.passkeys.enabled, disableSignup: configuration.disableSignup,
            passwordMinLength: configuration.password.minLength, codeMinutes: max(1, configuration.otp.expiry / 60),
            providers: configuration.external.providers.filter { $0.enabled && $0.oauth != nil }.map {
                (name: $0.name, label: labels[$0.name] ?? $0.name)
            }, captcha: captcha,
            consentPage: configuration.oauthServer.enabled ? HostedFlow.consentPage(externalURL: configuration.externalURL) : nil)
    }
}
