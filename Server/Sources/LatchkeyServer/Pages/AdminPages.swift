/// The operators' console pages (`/ui/admin/…`), as Mustache. Every form carries
/// `{{{csrf_field}}}`; actions post to the console and come back to the user's page.
enum AdminPages {
    static let signIn = """
        <form method="post" action="sign-in">
        {{{csrf_field}}}
        <label for="token">Service token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus aria-describedby="token-help">
        <p id="token-help" class="muted">A token with an admin role, such as one from <code>latchkey keys service-token</code>.
        It is exchanged for a {{minutes}}-minute console session and not kept.</p>
        <button type="submit">Sign in</button>
        </form>
        """

    static let users = """
        <form method="get" action="users" role="search">
        <label for="q">Find a user by email, phone or id</label>
        <input id="q" name="q" value="{{q}}" autofocus>
        <button type="submit">Search</button>
        </form>
        {{#searched}}<table>
        <caption class="muted">{{count}} found</caption>
        <thead><tr><th scope="col">User</th><th scope="col">Created</th><th scope="col">Last sign-in</th></tr></thead>
        <tbody>{{#users}}<tr><td><a href="user?id={{id}}">{{label}}</a>{{#banned}} (banned){{/banned}}</td><td>{{created}}</td><td>{{last}}</td></tr>{{/users}}</tbody>
        </table>{{/searched}}
        {{#oauth}}<p><a href="oauth-clients">OAuth clients</a>: the applications your users can sign in to</p>{{/oauth}}
        <form method="post" action="sign-out">{{{csrf_field}}}<button type="submit" class="link">Sign out of the console</button></form>
        """

    static let user = """
        <p><a href="users">← Find another user</a></p>
        <table><tbody>
        <tr><th scope="row">Id</th><td><code>{{id}}</code></td></tr>
        <tr><th scope="row">Email</th><td>{{email}}{{#email_confirmed}} (confirmed){{/email_confirmed}}</td></tr>
        <tr><th scope="row">Phone</th><td>{{phone}}</td></tr>
        <tr><th scope="row">Created</th><td>{{created}}</td></tr>
        <tr><th scope="row">Last sign-in</th><td>{{last}}</td></tr>
        <tr><th scope="row">Banned until</th><td>{{banned_until}}</td></tr>
        </tbody></table>
        <div class="row">
        <form method="post" action="sign-out-user">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}"><button type="submit" id="sign-out-everywhere">Sign out everywhere</button></form>
        {{#banned}}<form method="post" action="unban">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}"><button type="submit" class="secondary">Lift the ban</button></form>{{/banned}}
        {{^banned}}<form method="post" action="ban">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}"><button type="submit" class="secondary">Ban for 24 hours</button></form>{{/banned}}
        {{#unconfirmed}}<form method="post" action="resend">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}"><button type="submit" class="secondary">Resend the confirmation</button></form>{{/unconfirmed}}
        </div>
        <h2>Identities</h2>
        <table><thead><tr><th scope="col">Provider</th><th scope="col">Subject</th><th scope="col">Last sign-in</th></tr></thead>
        <tbody>{{#identities}}<tr><td>{{provider}}</td><td><code>{{subject}}</code></td><td>{{last}}</td></tr>{{/identities}}</tbody></table>
        <h2>Second factors</h2>
        {{^factors}}<p class="muted">None.</p>{{/factors}}
        {{#factors}}<div class="row"><span>{{name}} ({{type}}, {{status}})</span>
        <form method="post" action="remove-factor">{{{csrf_field}}}<input type="hidden" name="id" value="{{user_id}}"><input type="hidden" name="factor" value="{{id}}"><button type="submit" class="link">Remove</button></form></div>{{/factors}}
        {{#has_factors}}<form method="post" action="reset-factors">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}"><button type="submit" class="secondary" id="reset-factors">Reset second factors (signs the user out everywhere)</button></form>{{/has_factors}}
        <h2>Passkeys</h2>
        {{^passkeys}}<p class="muted">None.</p>{{/passkeys}}
        {{#passkeys}}<div class="row"><span>{{name}}, added {{created}}{{#synced}}, synced{{/synced}}</span>
        <form method="post" action="remove-passkey">{{{csrf_field}}}<input type="hidden" name="id" value="{{user_id}}"><input type="hidden" name="passkey" value="{{id}}"><button type="submit" class="link">Remove</button></form></div>{{/passkeys}}
        {{#oauth}}<h2>Applications with access</h2>
        {{^grants}}<p class="muted">None.</p>{{/grants}}
        {{#grants}}<div class="row"><span>{{name}} ({{scopes}}), since {{granted}}</span>
        <form method="post" action="revoke-grant">{{{csrf_field}}}<input type="hidden" name="id" value="{{user_id}}"><input type="hidden" name="client" value="{{client}}"><button type="submit" class="link">Revoke</button></form></div>{{/grants}}{{/oauth}}
        <h2>Sessions</h2>
        {{^sessions}}<p class="muted">None.</p>{{/sessions}}
        {{#has_sessions}}<table><thead><tr><th scope="col">Started</th><th scope="col">Level</th><th scope="col">Address</th><th scope="col">Agent</th></tr></thead>
        <tbody>{{#sessions}}<tr><td>{{created}}</td><td>{{aal}}</td><td>{{ip}}</td><td>{{agent}}{{#client}} (for {{client}}){{/client}}</td></tr>{{/sessions}}</tbody></table>{{/has_sessions}}
        <h2>Recent events</h2>
        <table><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">By</th><th scope="col">Address</th></tr></thead>
        <tbody>{{#events}}<tr><td>{{when}}</td><td>{{action}}</td><td>{{actor}}</td><td>{{ip}}</td></tr>{{/events}}</tbody></table>
        <h2>Delete</h2>
        {{#confirm_delete}}<p class="error">Deleting removes the user and everything they have, for good. Type <strong>{{confirm_word}}</strong> to confirm.</p>{{/confirm_delete}}
        <form method="post" action="delete">{{{csrf_field}}}<input type="hidden" name="id" value="{{id}}">
        {{#confirm_delete}}<label for="confirm">Type {{confirm_word}}</label><input id="confirm" name="confirm" autocomplete="off" required autofocus>{{/confirm_delete}}
        <button type="submit" class="danger">{{#confirm_delete}}Delete for good{{/confirm_delete}}{{^confirm_delete}}Delete this user…{{/confirm_delete}}</button></form>
        """

    static let oauthClients = """
        <p><a href="users">← Users</a></p>
        <p class="muted">Register and change clients with <code>latchkey oauth-clients</code> or <code>/admin/oauth/clients</code>.</p>
        {{^clients}}<p class="muted">No client is registered.</p>{{/clients}}
        {{#has_clients}}<table><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Registered</th></tr></thead>
        <tbody>{{#clients}}<tr><td>{{name}}</td><td><code>{{id}}</code></td><td>{{type}}</td><td>{{#uris}}<code>{{.}}</code> {{/uris}}</td><td>{{created}} ({{registration}})</td></tr>{{/clients}}</tbody></table>{{/has_clients}}
        """
}
