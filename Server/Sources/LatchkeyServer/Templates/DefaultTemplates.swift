import LatchkeyCore

/// The built-in message texts. Every message that proves an address carries both the code and
/// the link, so a user can finish on whichever device they are on.
enum DefaultTemplates {
    struct Source {
        var subject: String
        var text: String
        var html: String
    }

    static func source(for kind: MessageKind) -> Source {
        switch kind {
        case .confirmation:
            code(
                subject: "Confirm your email address", intro: "Your {{application.name}} verification code is",
                action: "Or confirm your address with this link:", button: "Confirm your email address")
        case .magicLink:
            code(
                subject: "Your sign-in code", intro: "Your {{application.name}} sign-in code is", action: "Or sign in with this link:",
                button: "Sign in")
        case .recovery:
            code(
                subject: "Reset your password", intro: "Your {{application.name}} password reset code is",
                action: "Or choose a new password with this link:", button: "Reset your password")
        case .emailChange:
            code(
                subject: "Confirm your new email address",
                intro: "Your {{application.name}} code to make {{new_email}} your new address is",
                action: "Or confirm the change with this link:", button: "Confirm your new address")
        case .emailChangeCurrent:
            code(
                subject: "Confirm your email address change",
                intro: "Your {{application.name}} code to change your address from {{email}} to {{new_email}} is",
                action: "Or confirm the change with this link:", button: "Confirm the change")
        case .reauthentication:
            code(subject: "Confirm it is you", intro: "Your {{application.name}} verification code is", action: nil, button: nil)
        case .invite:
            code(
                subject: "You have been invited to {{application.name}}",
                intro: "You have been invited to {{application.name}}. Your invitation code is",
                action: "Or accept the invitation with this link:", button: "Accept the invitation")
        case .passwordChanged:
            notice(
                subject: "Your password was changed",
                body: """
                    The password of your {{application.name}} account was changed, and every other session was signed out.
                    If you did not do this, reset your password at once and contact the app's support.
                    """)
        case .emailChanged:
            notice(
                subject: "Your email address was changed",
                body: """
                    The email address of your {{application.name}} account was changed from {{old_email}} to {{new_email}}.
                    If you did not do this, contact the app's support at once.
                    """)
        case .factorEnrolled:
            notice(
                subject: "A second factor was added to your account",
                body: """
                    A second factor was added to your {{application.name}} account: signing in now asks for its code.
                    If you did not do this, reset your password and contact the app's support at once.
                    """)
        case .recoveryCodeUsed:
            notice(
                subject: "A recovery code was used",
                body: """
                    A recovery code was used in place of the second factor to sign in to your {{application.name}} account. Each code works once.
                    If you did not do this, reset your password and contact the app's support at once.
                    """)
        case .factorUnenrolled:
            notice(
                subject: "A second factor was removed from your account",
                body: """
                    A second factor was removed from your {{application.name}} account.
                    If you did not do this, reset your password and contact the app's support at once.
                    """)
        case .identityLinked:
            notice(
                subject: "A sign-in method was linked to your account",
                body: """
                    A {{provider}} account was linked to your {{application.name}} account: it can now be used to sign in.
                    If you did not do this, remove it from your account, reset your password and contact the app's support at once.
                    """)
        case .identityUnlinked:
            notice(
                subject: "A sign-in method was removed from your account",
                body: """
                    A {{provider}} account was removed from the ways to sign in to your {{application.name}} account.
                    If you did not do this, reset your password and contact the app's support at once.
                    """)
        case .existingAccount:
            notice(
                subject: "You already have an account",
                body: """
                    Someone tried to create a new {{application.name}} account with this address, which already has one.
                    If it was you, sign in instead. If it was not, you can ignore this message: nothing changed.
                    """)
        case .sms:
            Source(subject: "", text: "Your {{application.name}} code is {{code}}. It expires in {{expires_in_minutes}} minutes.", html: "")
        case .mfaSMS:
            Source(subject: "", text: "Your {{application.name}} verification code is {{code}}.", html: "")
        }
    }

    /// A message carrying a code and, with `action`, a link.
    static func code(subject: String, intro: String, action: String?, button: String?) -> Source {
        let footer =
            "The code\(action == nil ? "" : " and the link") work\(action == nil ? "s" : "") once and expire\(action == nil ? "s" : "") "
            + "in {{expires_in_minutes}} minutes. If you did not ask for this, ignore this message."
        var text = "\(intro) {{code}}.\n\n"
        var html = """
            <!doctype html><html><body style="font-family: sans-serif">
            <p>\(intro):</p>
            <p style="font-size: 28px; letter-spacing: 4px"><strong>{{code}}</strong></p>

            """
        if let action, let button {
            text += "\(action)\n{{link}}\n\n"
            html += """
                <p>\(action)</p>
                <p><a href="{{link}}">\(button)</a></p>

                """
        }
        text += footer + "\n"
        html += """
            <p style="color: #666">\(footer)</p>
            </body></html>

            """
        return Source(subject: subject, text: text, html: html)
    }

    /// A notice without code or link.
    static func notice(subject: String, body: String) -> Source {
        let paragraphs = body.split(separator: "\n").map { "<p>\($0)</p>" }.joined(separator: "\n")
        return Source(
            subject: subject, text: body + "\n",
            html: "<!doctype html><html><body style=\"font-family: sans-serif\">\n\(paragraphs)\n</body></html>\n")
    }
}
