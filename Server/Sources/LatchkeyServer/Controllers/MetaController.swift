import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// `/health`, `/settings`, `/.well-known/jwks.json`, `/.well-known/apple-app-site-association`
/// and `/openapi.json`.
struct MetaController {
    /// `GET /settings`.
    let settings: ServerSettings
    /// Publishes the token keys.
    let issuer: any TokenIssuing
    let openAPI: Data
    /// Whether the database answers (the composition root passes the store's ping).
    let databaseAnswers: @Sendable () async -> Bool
    let readiness: Readiness
    /// The Apple apps this domain serves, or `nil`.
    let appleApps: AppleAppSiteAssociation?

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/health") { _, _ in
            let databaseAnswers = await databaseAnswers()
            let draining = readiness.isDraining
            return try JSONResponse.make(
                HealthResponse(
                    version: LatchkeyVersion.current, name: "GoTrue", description: "GoTrue is a user registration and authentication API",
                    database: databaseAnswers ? "ok" : "unavailable", status: draining ? "shutting_down" : "ready"),
                status: databaseAnswers && !draining ? .ok : .serviceUnavailable, noStore: true)
        }
        routes.on(.get, "/settings") { _, _ in try JSONResponse.make(settings) }
        routes.on(.get, "/.well-known/jwks.json") { _, _ in
            var response = try JSONResponse.make(["keys": issuer.publicJWKS])
            response.headers[.cacheControl] = "public, max-age=600"
            return response
        }
        let association = appleApps?.document
        routes.on(.get, "/.well-known/apple-app-site-association") { _, _ in
            guard let association else {
                throw AuthError(.notFound, "No Apple app is associated with this domain (LATCHKEY_APPLE_APP_IDS)")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(bytes: association)))
        }
        routes.on(.get, "/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: openAPI)))
        }
    }
}

/// The server's version.
public enum LatchkeyVersion {
    public static let current = "0.1.0"
}
