/// The built-in hosted pages, as Mustache: `layout` wraps every page's body. An operator's
/// `LATCHKEY_UI_TEMPLATES_DIR` may replace any of them (docs/hosted-pages.md lists what each
/// can use). Every form carries `{{{flow_fields}}}`: the CSRF token and the app's flow.
enum DefaultPages {
    static let sources: [String: String] = [
        "layout": layout, "sign-in": signIn, "sign-up": signUp, "code": code, "check-email": checkEmail, "reset": reset,
        "reset-code": resetCode, "email-change": emailChange, "continue": continuePage, "second-factor": secondFactor, "consent": consent,
        "message": message,
        "admin-sign-in": AdminPages.signIn, "admin-users": AdminPages.users, "admin-user": AdminPages.user,
        "admin-oauth-clients": AdminPages.oauthClients,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex"><title>{{title}} · {{app_name}}</title>
        <style nonce="{{nonce}}">
        :root{--accent:{{accent}};--bg:{{background}};--text:#1d2330;--muted:#5b6475;--line:#c9ced8;--danger:#b3261e}
        *{box-sizing:border-box}
        body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;display:flex;align-items:flex-start;justify-content:center;padding:2rem 1rem}
        main{width:100%;max-width:26rem;background:#fff;border-radius:12px;padding:2rem 1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
        main.wide{max-width:60rem}
        .brand{font-weight:600;margin:0 0 1rem;color:var(--muted)} .logo{max-height:3rem;margin-bottom:1rem}
        h1{font-size:1.5rem;margin:0 0 1rem} h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
        form{display:flex;flex-direction:column;gap:.5rem;margin:0 0 1rem}
        label{font-weight:600;font-size:.95rem}
        input{font:inherit;padding:.65rem .75rem;border:1px solid var(--line);border-radius:8px;width:100%}
        input:focus,button:focus,a:focus,summary:focus{outline:3px solid var(--accent);outline-offset:2px}
        button,.button{font:inherit;font-weight:600;padding:.7rem 1rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-align:center;text-decoration:none;display:block}
        button.secondary,.button.secondary{background:#fff;color:var(--accent)}
        button.link{background:none;border:0;color:var(--accent);padding:0;text-decoration:underline;font-weight:400;text-align:left}
        button.danger{background:var(--danger);border-color:var(--danger)}
        a{color:var(--accent)} details{margin:1rem 0} summary{cursor:pointer;color:var(--accent)}
        .error{color:var(--danger);background:#fdecea;border-radius:8px;padding:.6rem .75rem;margin:0 0 1rem}
        .info{background:#eef3fc;border-radius:8px;padding:.6rem .75rem}
        .providers{display:flex;flex-direction:column;gap:.5rem;margin:1rem 0}
        .muted{color:var(--muted);font-size:.9rem}
        table{border-collapse:collapse;width:100%;font-size:.9rem;margin-bottom:1rem} th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
        .row{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center} .row form{margin:0}
        code{font-size:.85rem;word-break:break-all}
        </style></head>
        <body><main{{#wide}} class="wide"{{/wide}}>
        {{#logo_url}}<img class="logo" src="{{logo_url}}" alt="{{app_name}}">{{/logo_url}}{{^logo_url}}<p class="brand">{{app_name}}</p>{{/logo_url}}
        <h1>{{title}}</h1>
        <div id="status" role="alert" aria-live="assertive">{{#error}}<p class="error">{{error}}</p>{{/error}}</div>
        {{#info}}<p class="info" role="status">{{info}}</p>{{/info}}
        {{{body}}}
        </main>
        {{#script}}<script nonce="{{nonce}}">{{{script}}}</script>{{/script}}
        {{#captcha_script}}<script src="{{captcha_script}}" nonce="{{nonce}}" async defer></script>{{/captcha_script}}
        </body></html>
        """

    static let signIn = """
        <form method="post" action="code">
        {{{flow_fields}}}
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="username webauthn" required{{^password_open}} autofocus{{/password_open}} value="{{email}}">
        {{{captcha_widget}}}
        <button type="submit">Email me a code</button>
        <button type="submit" formaction="magic-link" class="secondary">Email me a link instead</button>
        </form>
        {{#passkeys}}<form method="post" action="passkey" id="passkey-form">
        {{{flow_fields}}}<input type="hidden" name="challenge_id"><input type="hidden" name="credential">
        <button type="button" id="passkey-button" class="secondary" hidden>Sign in with a passkey</button>
        </form>{{/passkeys}}
        <details{{#password_open}} open{{/password_open}}><summary>Use a password</summary>
        <form method="post" action="password">
        {{{flow_fields}}}
        <label for="password-email">Email address</label>
        <input id="password-email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required{{#password_open}} autofocus{{/password_open}}>
        {{{captcha_widget}}}
        <button type="submit">Sign in</button>
        </form>
        <p><a href="reset?{{query}}">Forgot your password?</a></p>
        </details>
        {{#has_providers}}<div class="providers">{{#providers}}<a class="button secondary" href="{{url}}">Continue with {{label}}</a>{{/providers}}</div>{{/has_providers}}
        <p>New here? <a href="sign-up?{{query}}">Create an account</a></p>
        """

    static let signUp = """
        <form method="post" action="sign-up">
        {{{flow_fields}}}
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus value="{{email}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="{{password_min}}" aria-describedby="password-help">
        <p id="password-help" class="muted">At least {{password_min}} characters.</p>
        {{{captcha_widget}}}
        <button type="submit">Create account</button>
        </form>
        <p>No password? <a href="sign-in?{{query}}">Sign up with an emailed code</a>. Have an account? <a href="sign-in?{{query}}">Sign in</a></p>
        """

    static let code = """
        <p>We sent a code to <strong>{{email}}</strong>. It works once and expires in {{minutes}} minutes.</p>
        <form method="post" action="verify-code">
        {{{flow_fields}}}<input type="hidden" name="email" value="{{email}}">
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="10" required autofocus>
        <button type="submit">Continue</button>
        </form>
        <form method="post" action="code">
        {{{flow_fields}}}<input type="hidden" name="email" value="{{email}}">
        {{{captcha_widget}}}
        <button type="submit" class="link">Send a new code</button>
        </form>
        <p><a href="sign-in?{{query}}">Use another address</a></p>
        """

    static let checkEmail = """
        <p>We sent a link to <strong>{{email}}</strong>. Open it on this device to continue; it works once.</p>
        <p><a href="sign-in?{{query}}">Back to sign-in</a></p>
        """

    static let reset = """
        <form method="post" action="reset">
        {{{flow_fields}}}
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus value="{{email}}">
        {{{captcha_widget}}}
        <button type="submit">Email me a code</button>
        </form>
        <p><a href="sign-in?{{query}}">Back to sign-in</a></p>
        """

    static let resetCode = """
        <p>If <strong>{{email}}</strong> has an account, we sent it a code.</p>
        <form method="post" action="reset-code">
        {{{flow_fields}}}<input type="hidden" name="email" value="{{email}}">
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="10" required autofocus>
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="{{password_min}}">
        <button type="submit">Set password and continue</button>
        </form>
        """

    static let emailChange = """
        <p>Enter the code from the email about your new address. With secure email change on, each address gets its own code.</p>
        <form method="post" action="email-change">
        {{{flow_fields}}}
        <label for="email">The address the code was sent to</label>
        <input id="email" name="email" type="email" autocomplete="email" required autofocus value="{{email}}">
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="10" required>
        <button type="submit">Confirm</button>
        </form>
        """

    static let continuePage = """
        <p>You're signed in as <strong>{{email}}</strong>.</p>
        {{#passkeys}}<div id="passkey-offer" hidden>
        <p>Next time, sign in with Face ID, Touch ID or your device's screen lock: add a passkey.</p>
        <form method="post" action="passkey-register" id="passkey-form">
        {{{flow_fields}}}<input type="hidden" name="challenge_id"><input type="hidden" name="credential">
        <button type="button" id="passkey-add">Add a passkey</button>
        </form></div>{{/passkeys}}
        <form method="post" action="continue">
        {{{flow_fields}}}
        <button type="submit" id="continue"{{#passkeys}} class="secondary"{{/passkeys}}>Continue to {{app_name}}</button>
        </form>
        """

    static let secondFactor = """
        <p><strong>{{email}}</strong> has two-step verification on: one more step.</p>
        {{#totp}}<form method="post" action="second-factor">
        {{{flow_fields}}}<input type="hidden" name="factor_id" value="{{id}}">
        <label for="code">Code from your authenticator app{{#name}} ({{name}}){{/name}}</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="10" required autofocus>
        <button type="submit">Continue</button>
        </form>{{/totp}}
        {{#phone}}{{#challenge_id}}<form method="post" action="second-factor">
        {{{flow_fields}}}<input type="hidden" name="factor_id" value="{{id}}"><input type="hidden" name="challenge_id" value="{{challenge_id}}">
        <label for="phone-code">Code sent to {{number}}</label>
        <input id="phone-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="10" required autofocus>
        <button type="submit">Continue</button>
        </form>{{/challenge_id}}
        <form method="post" action="second-factor-send">
        {{{flow_fields}}}<input type="hidden" name="factor_id" value="{{id}}">
        <button type="submit" class="secondary">{{#challenge_id}}Send a new code{{/challenge_id}}{{^challenge_id}}Text a code to {{number}}{{/challenge_id}}</button>
        </form>{{/phone}}
        {{#key}}<form method="post" action="second-factor" id="key-form">
        {{{flow_fields}}}<input type="hidden" name="factor_id" value="{{id}}"><input type="hidden" name="challenge_id"><input type="hidden" name="credential">
        <button type="button" id="key-button" class="secondary" hidden>Use your security key</button>
        </form>{{/key}}
        <details{{#recovery_open}} open{{/recovery_open}}><summary>Use a recovery code</summary>
        <form method="post" action="recovery-code">
        {{{flow_fields}}}
        <label for="recovery-code">Recovery code</label>
        <input id="recovery-code" name="code" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="64" required>
        <button type="submit">Continue</button>
        </form>
        <p class="muted">The codes you saved when you set up two-step verification; each works once.</p>
        </details>
        <p><a href="sign-in?{{query}}">Sign in as someone else</a></p>
        """

    static let consent = """
        <p><strong>{{client_name}}</strong> would like to use your account <strong>{{email}}</strong>.</p>
        {{#client_uri}}<p class="muted">{{client_uri}}</p>{{/client_uri}}
        {{#has_scopes}}<p>It will be able to:</p>
        <ul>{{#scopes}}<li>{{.}}</li>{{/scopes}}</ul>{{/has_scopes}}
        <form method="post" action="consent">
        {{{consent_fields}}}<input type="hidden" name="action" value="approve">
        <button type="submit" id="approve">Allow</button>
        </form>
        <form method="post" action="consent">
        {{{consent_fields}}}<input type="hidden" name="action" value="deny">
        <button type="submit" id="deny" class="secondary">Deny</button>
        </form>
        <p class="muted">Either way you go back to {{redirect_host}}. You can take this access back at any time.</p>
        """

    static let message = """
        <p>{{text}}</p>
        {{#query}}<p><a href="sign-in?{{query}}">Back to sign-in</a></p>{{/query}}
        """
}
