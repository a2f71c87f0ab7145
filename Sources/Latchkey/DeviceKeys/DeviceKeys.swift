import Crypto
import Foundation
import LatchkeyAPI

/// Sign-in with a key kept on the device ("Touch ID" sign-in): after a first sign-in, the app
/// enrols the device; from then on ``AuthClient/signInWithDeviceKey(reason:)`` signs the user in
/// with a biometric prompt and no password or code.
///
/// ```swift
/// // Once, while signed in:
/// try await auth.deviceKeys.enroll(name: "Ada's iPhone")
/// // On later launches, signed out:
/// do {
///     let session = try await auth.signInWithDeviceKey(reason: "Sign in to Acme")
/// } catch let error as LatchkeyError where error.isDeviceKeyEnrollmentNeeded {
///     showOtherSignInOptions()   // then enrol again
/// }
/// ```
///
/// The private key stays in the ``AuthClient/Configuration/deviceKeyStore``: the Secure Enclave
/// on Apple platforms, the SDK's storage elsewhere. The server keeps only the public key.
public struct DeviceKeys: Sendable {
    let client: AuthClient

    /// Creates a key pair on this device and registers its public key for the signed-in user,
    /// replacing this device's previous key (which is revoked). Needs a signed-in session.
    @discardableResult
    public func enroll(name: String) async throws -> DeviceKey {
        try await client.enrollDeviceKey(name: name)
    }

    /// Whether this device has a key enrolled (it may still have been revoked on the server).
    public var isEnrolled: Bool {
        get async { (try? await client.loadEnrollment()) != nil }
    }

    /// The signed-in user's device keys, oldest first.
    public func list() async throws -> [DeviceKey] {
        try await client.withSession { session in
            try await client.api.send(
                try client.api.request("GET", "device-keys", bearer: session.accessToken), as: DeviceKeyList.self
            ).deviceKeys
        }
    }

    /// Revokes a key: it signs nothing from now on. Revoking this device's own key also deletes
    /// its private half here.
    public func revoke(_ key: DeviceKey) async throws {
        try await revoke(id: key.id)
    }

    /// Revokes the key with this id.
    public func revoke(id: UUID) async throws {
        let wireID = id.uuidString.lowercased()
        _ = try await client.withSession { session in
            try await client.api.sendRaw(try client.api.request("DELETE", "device-keys/\(wireID)", bearer: session.accessToken))
        }
        if let enrollment = try await client.loadEnrollment(), enrollment.keyID.lowercased() == wireID {
            try await client.forgetDeviceKey(enrollment)
        }
    }
}

extension AuthClient {
    /// This client's device keys: ``DeviceKeys/enroll(name:)``, ``DeviceKeys/list()``,
    /// ``DeviceKeys/revoke(_:)``.
    public nonisolated var deviceKeys: DeviceKeys { DeviceKeys(client: self) }

    var enrollmentKey: String { configuration.storageKey + ".device-key" }

    func loadEnrollment() async throws -> DeviceKeyEnrollment? {
        try await configuration.storage.load(key: enrollmentKey).flatMap { try? JSONDecoder().decode(DeviceKeyEnrollment.self, from: $0) }
    }

    func forgetDeviceKey(_ enrollment: DeviceKeyEnrollment) async throws {
        try await configuration.deviceKeyStore.deleteKey(tag: enrollment.tag)
        try await configuration.storage.remove(key: enrollmentKey)
    }

    func enrollDeviceKey(name: String) async throws -> DeviceKey {
        try await ready()
        let previous = try await loadEnrollment()
        let tag = "latchkey.device-key.\(UUID().uuidString.lowercased())"
        let publicKey = try await configuration.deviceKeyStore.createKey(tag: tag)
        let raw = publicKey.rawRepresentation
        let jwk: [String: JSONValue] = [
            "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(Array(raw.prefix(32)))),
            "y": .string(Base64URL.encode(Array(raw.suffix(32)))),
        ]
        let registered: (DeviceKey, String)
        do {
            registered = try await withSession { session in
                let key = try await api.send(
                    try api.request(
                        "POST", "device-keys", body: RegisterDeviceKeyRequest(name: name, publicKey: jwk), bearer: session.accessToken),
                    as: DeviceKey.self)
                return (key, session.user.id.uuidString.lowercased())
            }
        } catch {
            try? await configuration.deviceKeyStore.deleteKey(tag: tag)
            throw error
        }
        let enrollment = DeviceKeyEnrollment(keyID: registered.0.id.uuidString.lowercased(), userID: registered.1, name: name, tag: tag)
        try await configuration.storage.save(try JSONEncoder().encode(enrollment), key: enrollmentKey)
        if let previous {
            try? await configuration.deviceKeyStore.deleteKey(tag: previous.tag)
            if let session = stored {
                _ = try? await api.sendRaw(try api.request("DELETE", "device-keys/\(previous.keyID)", bearer: session.accessToken))
            }
        }
        return registered.0
    }

    /// Signs in with this device's key: the key store asks the user (showing `reason` in the
    /// biometric prompt), signs a short-lived assertion, and the server exchanges it for a session.
    ///
    /// Throws ``LatchkeyError/isDeviceKeyEnrollmentNeeded`` when this device has no usable key:
    /// never enrolled, lost (a phone restored from a backup, biometrics changed) or no longer
    /// accepted by the server (revoked, the password changed, a global sign-out). The app then
    /// signs the user in another way and enrols again. `user_cancelled` when the user dismissed
    /// the prompt.
    @discardableResult
    public func signInWithDeviceKey(reason: String = "Sign in") async throws -> Session {
        try await ready()
        guard let enrollment = try await loadEnrollment() else {
            throw LatchkeyError(code: .deviceKeyMissing, message: "This device has no device key: sign in another way and enrol it")
        }
        let audience = configuration.url.appendingPathComponent("token").absoluteString
        let input = try enrollment.signingInput(audience: audience, now: now)
        guard let signature = try await configuration.deviceKeyStore.sign(input, tag: enrollment.tag, reason: reason) else {
            try? await forgetDeviceKey(enrollment)
            throw LatchkeyError(
                code: .deviceKeyMissing,
                message: "This device's key is gone (restored from a backup, or biometrics changed): sign in another way and enrol again")
        }
        let assertion = String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(Array(signature))
        do {
            let session = try await api.send(
                try api.request(
                    "POST", "token", query: ["grant_type": JWTBearerGrantRequest.grantType],
                    body: JWTBearerGrantRequest(assertion: assertion)),
                as: Session.self)
            await setSession(session, event: .signedIn)
            return session
        } catch let error as LatchkeyError where error.code == .deviceKeyNotFound {
            try? await forgetDeviceKey(enrollment)
            throw LatchkeyError(
                code: .deviceKeyNotFound,
                message:
                    "The server no longer accepts this device's key (revoked, or the password changed): sign in another way and enrol again",
                status: error.status)
        }
    }
}
