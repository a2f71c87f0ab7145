/// The only JavaScript the hosted pages run: the passkey ceremonies, which a plain form cannot
/// do. Each shows its button only where the browser has WebAuthn, fills the form's hidden fields
/// with the credential's JSON and submits the form; the server does every check.
enum PageScripts {
    static let base64URL = """
        const enc = b => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
        const dec = s => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), c => c.charCodeAt(0));
        const say = text => { const s = document.getElementById('status'); s.innerHTML = ''; const p = document.createElement('p'); p.className = 'error'; p.textContent = text; s.appendChild(p); };
        """

    /// The sign-in page: options from `/passkeys/authentication/options`, then
    /// `navigator.credentials.get`, then the form to `/ui/passkey`.
    static let signIn =
        base64URL + """
            const button = document.getElementById('passkey-button');
            if (button && window.PublicKeyCredential) {
              button.hidden = false;
              button.addEventListener('click', async () => {
                try {
                  const answer = await fetch('../passkeys/authentication/options', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'});
                  const options = await answer.json();
                  if (!answer.ok) { say(options.msg || options.message || 'Passkeys are not available.'); return; }
                  const publicKey = options.options;
                  publicKey.challenge = dec(publicKey.challenge);
                  const credential = await navigator.credentials.get({publicKey});
                  const r = credential.response;
                  const form = document.getElementById('passkey-form');
                  form.elements.challenge_id.value = options.challenge_id;
                  form.elements.credential.value = JSON.stringify({id: credential.id, rawId: enc(credential.rawId), type: credential.type,
                    response: {clientDataJSON: enc(r.clientDataJSON), authenticatorData: enc(r.authenticatorData), signature: enc(r.signature),
                      userHandle: r.userHandle ? enc(r.userHandle) : null}});
                  form.submit();
                } catch (error) { say('No passkey was used. Try again, or sign in another way.'); }
              });
            }
            """

    /// The page after sign-in: options from `/ui/passkey-options` (the signed-in page's own
    /// session), then `navigator.credentials.create`, then the form to `/ui/passkey-register`.
    static let register =
        base64URL + """
            const offer = document.getElementById('passkey-offer');
            if (offer && window.PublicKeyCredential) {
              offer.hidden = false;
              document.getElementById('passkey-add').addEventListener('click', async () => {
                const form = document.getElementById('passkey-form');
                try {
                  const answer = await fetch('passkey-options', {method: 'POST', headers: {'X-CSRF-Token': form.elements.csrf.value}});
                  const options = await answer.json();
                  if (!answer.ok) { say(options.msg || options.message || 'A passkey cannot be added now.'); return; }
                  const publicKey = options.options;
                  publicKey.challenge = dec(publicKey.challenge);
                  publicKey.user.id = dec(publicKey.user.id);
                  (publicKey.excludeCredentials || []).forEach(c => { c.id = dec(c.id); });
                  const credential = await navigator.credentials.create({publicKey});
                  const r = credential.response;
                  form.elements.challenge_id.value = options.challenge_id;
                  form.elements.credential.value = JSON.stringify({id: credential.id, rawId: enc(credential.rawId), type: credential.type,
                    response: {clientDataJSON: enc(r.clientDataJSON), attestationObject: enc(r.attestationObject),
                      transports: r.getTransports ? r.getTransports() : []}});
                  form.submit();
                } catch (error) { say('No passkey was added. You can continue without one.'); }
              });
            }
            """

    /// The second-factor page: the challenge of the user's security key from
    /// `/ui/second-factor-options`, then `navigator.credentials.get`, then the form to
    /// `/ui/second-factor`.
    static let securityKey =
        base64URL + """
            const key = document.getElementById('key-button');
            if (key && window.PublicKeyCredential) {
              key.hidden = false;
              key.addEventListener('click', async () => {
                const form = document.getElementById('key-form');
                try {
                  const answer = await fetch('second-factor-options', {method: 'POST', headers: {'X-CSRF-Token': form.elements.csrf.value}});
                  const challenge = await answer.json();
                  if (!answer.ok) { say(challenge.msg || challenge.message || 'Your security key cannot be used now.'); return; }
                  const publicKey = challenge.webauthn.credential_options.publicKey;
                  publicKey.challenge = dec(publicKey.challenge);
                  (publicKey.allowCredentials || []).forEach(c => { c.id = dec(c.id); });
                  const credential = await navigator.credentials.get({publicKey});
                  const r = credential.response;
                  form.elements.challenge_id.value = challenge.id;
                  form.elements.credential.value = JSON.stringify({id: credential.id, rawId: enc(credential.rawId), type: credential.type,
                    response: {clientDataJSON: enc(r.clientDataJSON), authenticatorData: enc(r.authenticatorData), signature: enc(r.signature),
                      userHandle: r.userHandle ? enc(r.userHandle) : null}});
                  form.submit();
                } catch (error) { say('Your security key was not used. Try again, or use a recovery code.'); }
              });
            }
            """
}
