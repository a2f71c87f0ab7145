import Hummingbird
import LatchkeyCore

/// The page a link opened in a browser shows first when GoTrue's link confirmation is on
/// (`GET /verify`): nothing is spent until the person presses the button, so a mail scanner that
/// follows links spends nothing. Its form posts back to `/verify`.
enum LinkConfirmationPage {
    /// The scanner-safe confirmation page: nothing happens until the button is pressed.
    static func response(token: String, type: String, redirectTo: String?, formTargets: [String] = []) -> Response {
        var formAction = ["'self'"]
        for source in formTargets.compactMap(PageRenderer.cspSource) where !formAction.contains(source) { formAction.append(source) }
        let e = EmailComposer.escape
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex"><title>Confirm sign-in</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;text-align:center}
            button{font-size:1.1rem;padding:.7rem 1.6rem;border-radius:.5rem;border:0;background:#2b59c3;color:#fff;cursor:pointer}</style>
            </head><body>
            <h1>Continue to sign in</h1>
            <p>Press the button to finish. This link works once.</p>
            <form method="post" action="verify">
            <input type="hidden" name="token" value="\(e(token))">
            <input type="hidden" name="type" value="\(e(type))">
            <input type="hidden" name="redirect_to" value="\(e(redirectTo ?? ""))">
            <button type="submit">Continue</button>
            </form>
            </body></html>
            """
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .referrerPolicy: "no-referrer",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; form-action \(formAction.joined(separator: " ")); frame-ancestors 'none'",
                .xFrameOptions: "DENY",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
