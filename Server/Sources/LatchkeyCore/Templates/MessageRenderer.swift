/// Renders the messages Latchkey sends (emails and SMS) from their values. The app injects the
/// implementation (the server's renders Mustache templates, `MessageTemplates`), so the domain
/// carries no template engine.
public protocol MessageRenderer: Sendable {
    /// The subject, plain text and HTML of `kind` with `values`; an SMS uses only the text.
    func render(_ kind: MessageKind, _ values: TemplateValues) -> (subject: String, text: String, html: String)
}
