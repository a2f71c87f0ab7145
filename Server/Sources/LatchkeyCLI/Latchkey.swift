import ArgumentParser

/// `latchkey`: the server and its tools.
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Self-hosted, passwordless-first authentication, wire compatible with Supabase Auth.",
        subcommands: [
            Serve.self, Migrate.self, Mailbox.self, Users.self, Keys.self, Providers.self, OAuthClientsCommand.self, Webhooks.self,
            Audit.self, Login.self,
            Health.self, Config.self,
        ])
}

/// Flags shared by the commands that open the data folder.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder for the database and generated keys (LATCHKEY_DATA_DIR).")
    var dataDirectory: String?

    @Option(name: .customLong("database"), help: "SQLite file, sqlite:// or postgres:// URL (DATABASE_URL).")
    var database: String?

    var overrides: [String: String] {
        var result: [String: String] = [:]
        result["data-dir"] = dataDirectory
        result["database"] = database
        return result
    }
}
