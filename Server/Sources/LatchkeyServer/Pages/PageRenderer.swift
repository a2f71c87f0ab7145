import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import Mustache

/// Renders the hosted pages from Mustache templates (the defaults, with an operator's
/// overrides) inside one layout, and answers them with the headers every page gets: no caching,
/// no framing, no referrer, and a Content-Security-Policy that runs only this response's inline
/// script and style (a fresh nonce each time).
public struct PageRenderer: Sendable {
    /// The operator's branding, read once at start.
    public struct Brand: Sendable, Equatable {
        public var appName: String
        public var logoURL: String?
        public var accent: String
        public var background: String

        public init(appName: String, logoURL: String? = nil, accent: String = "#2b59c3", background: String = "#f4f5f7") {
            self.appName = appName
            self.logoURL = logoURL
            self.accent = accent
            self.background = background
        }
    }

    let templates: [String: MustacheTemplate]
    public var brand: Brand

    /// The built-in pages with `brand`.
    public static func defaults(brand: Brand) -> PageRenderer {
        // The defaults are tested to parse; a failure here is a bug in DefaultPages.
        PageRenderer(templates: DefaultPages.sources.mapValues { try! MustacheTemplate(string: $0) }, brand: brand)
    }

    /// The built-in pages with an operator's files from `directory` laid over them:
    /// `layout.mustache` and `<page>.mustache`. Throws ``TemplateError`` naming an unknown or
    /// unparsable file.
    public static func load(directory: String?, brand: Brand) throws -> PageRenderer {
        var renderer = defaults(brand: brand)
        guard let directory else { return renderer }
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw TemplateError("the page templates folder \(directory) cannot be read")
        }
        var templates = renderer.templates
        for file in files {
            let name = file.hasSuffix(".mustache") ? String(file.dropLast(9)) : ""
            guard DefaultPages.sources[name] != nil else {
                throw TemplateError(
                    "unknown page template \(file): expected <page>.mustache with a page of "
                        + DefaultPages.sources.keys.sorted().joined(separator: ", "))
            }
            let path = (directory as NSString).appendingPathComponent(file)
            guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw TemplateError("the page template \(path) cannot be read as UTF-8")
            }
            do {
                templates[name] = try MustacheTemplate(string: source)
            } catch {
                throw TemplateError("\(path) is not a valid Mustache template: \(error)")
            }
        }
        renderer = PageRenderer(templates: templates, brand: brand)
        return renderer
    }

    /// `page` inside the layout, titled `title`, with `values` (and the brand's).
    func html(_ page: String, title: String, values: [String: Any], nonce: String, script: String?, wide: Bool = false) -> String {
        var context = values
        context["app_name"] = brand.appName
        context["logo_url"] = brand.logoURL
        context["accent"] = brand.accent
        context["background"] = brand.background
        context["nonce"] = nonce
        context["title"] = title
        let body = templates[page]?.render(context) ?? ""
        var layout = context
        layout["body"] = body
        layout["script"] = script
        layout["wide"] = wide
        return templates["layout"]?.render(layout) ?? body
    }

    /// A page as a response with `status`, the security headers, and `cookies` set. `formTarget`
    /// is where the page's forms may end up after the server's redirect (the app's `redirect_to`),
    /// which the policy's `form-action` must allow.
    func response(
        _ page: String, title: String, values: [String: Any] = [:], status: HTTPResponse.Status = .ok, script: String? = nil,
        formTarget: String? = nil, cookies: [String] = [], wide: Bool = false, captcha: CaptchaSettings.Provider? = nil
    ) -> Response {
        let nonce = Base64URL.encode(SecureRandom.bytes(18))
        var headers = Self.headers(nonce: nonce, formTarget: formTarget, captcha: captcha)
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        var values = values
        values["captcha_script"] = captcha.map(Self.captchaScript)
        let html = html(page, title: title, values: values, nonce: nonce, script: script, wide: wide)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The headers of every page.
    static func headers(nonce: String, formTarget: String?, captcha: CaptchaSettings.Provider? = nil) -> HTTPFields {
        var formAction = "'self'"
        if let source = formTarget.flatMap(cspSource) { formAction += " " + source }
        // A captcha widget's script, frames, styles and calls come from its provider's origins alone.
        let provider = captcha.map { " " + Self.captchaOrigins($0) } ?? ""
        var policy =
            "default-src 'none'; script-src 'nonce-\(nonce)'\(provider); style-src 'nonce-\(nonce)'\(provider); "
            + "img-src 'self' https: data:; connect-src 'self'\(provider); form-action \(formAction); frame-ancestors 'none'; "
            + "base-uri 'none'"
        if captcha != nil { policy += "; frame-src\(provider)" }
        return [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .referrerPolicy: "no-referrer",
            .contentSecurityPolicy: policy, .xFrameOptions: "DENY", .xContentTypeOptions: "nosniff",
        ]
    }

    /// The CSP source that allows `url`: its origin (`https://app.example.com`), or its scheme
    /// for an app's own (`myapp:`). `nil` for anything a policy could be injected through.
    static func cspSource(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let host = parts.host?.lowercased(), !host.isEmpty,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.[]:".contains($0)) })
        else { return nil }
        return "\(scheme)://\(host)" + (parts.port.map { ":\($0)" } ?? "")
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}

extension PageRenderer {
    /// The origins a provider's widget loads from (its documentation's Content-Security-Policy).
    static func captchaOrigins(_ provider: CaptchaSettings.Provider) -> String {
        switch provider {
        case .hcaptcha: "https://hcaptcha.com https://*.hcaptcha.com"
        case .turnstile: "https://challenges.cloudflare.com"
        }
    }

    /// The widget's script.
    static func captchaScript(_ provider: CaptchaSettings.Provider) -> String {
        switch provider {
        case .hcaptcha: "https://js.hcaptcha.com/1/api.js"
        case .turnstile: "https://challenges.cloudflare.com/turnstile/v0/api.js"
        }
    }

    /// The form field the widget fills with its token.
    static func captchaField(_ provider: CaptchaSettings.Provider) -> String {
        switch provider {
        case .hcaptcha: "h-captcha-response"
        case .turnstile: "cf-turnstile-response"
        }
    }

    /// The widget's element for a form, or `nil` without a site key (the forms are then refused).
    static func captchaWidget(_ settings: CaptchaSettings) -> String? {
        guard let siteKey = settings.siteKey else { return nil }
        let name = settings.provider == .hcaptcha ? "h-captcha" : "cf-turnstile"
        return "<div class=\"\(name)\" data-sitekey=\"\(EmailComposer.escape(siteKey))\"></div>"
    }
}
