import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// Turns errors into GoTrue-shaped responses in the dialect the request asked for.
enum APIErrorResponder {
    /// The status each code answers with (GoTrue's choices).
    static func status(for error: AuthError) -> HTTPResponse.Status {
        if let status = error.status { return HTTPResponse.Status(code: status) }
        if error.oauthError != nil { return .badRequest }
        switch error.code {
        case .noAuthorization, .insufficientAAL: return .unauthorized
        case .badJWT, .sessionNotFound, .userNotFound, .notAdmin, .otpExpired:
            return .forbidden
        case .requestEntityTooLarge: return .contentTooLarge
        case .overRequestRateLimit, .overEmailSendRateLimit, .overSMSSendRateLimit: return .tooManyRequests
        case .weakPassword, .samePassword, .signupDisabled, .otpDisabled, .userAlreadyExists, .emailExists,
            .anonymousProviderDisabled, .phoneProviderDisabled, .emailProviderDisabled, .featureDisabled, .phoneExists,
            .reauthenticationNotValid, .mfaFactorNameConflict, .tooManyEnrolledMFAFactors, .mfaChallengeExpired,
            .mfaVerificationFailed, .mfaIPAddressMismatch, .mfaTOTPEnrollNotEnabled, .mfaTOTPVerifyNotEnabled, .mfaPhoneEnrollNotEnabled,
            .mfaPhoneVerifyNotEnabled, .mfaWebAuthnEnrollNotEnabled, .mfaWebAuthnVerifyNotEnabled, .mfaVerifiedFactorExists, .invalidPIN,
            .providerEmailNeedsVerification, .identityAlreadyExists, .singleIdentityNotDeletable, .tooManyPasskeys,
            .webauthnCredentialExists, .web3ProviderDisabled:
            return .unprocessableContent
        case .notFound, .flowStateNotFound, .mfaFactorNotFound, .manualLinkingDisabled, .identityNotFound, .passkeyDisabled:
            return .notFound
        case .flowStateExpired: return .unprocessableContent
        case .conflict: return .conflict
        case .vaultLocked: return HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .unexpectedFailure: return .internalServerError
        default: return .badRequest
        }
    }

    static func response(for error: AuthError, status: HTTPResponse.Status? = nil, request: Request, requestID: String) -> Response {
        let status = status ?? self.status(for: error)
        let structured = APIVersion.usesStructuredErrors(request.headers[.supabaseAPIVersion])
        var headers: HTTPFields = [.contentType: "application/json;charset=UTF-8", .cacheControl: "no-store"]
        headers[.sbErrorCode] = error.code.rawValue
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        let weak = error.weakPasswordReasons.map { WeakPassword(message: error.message, reasons: $0) }
        let encoder = WireJSON.makeEncoder()
        let body: Data?
        if let oauth = error.oauthError {
            body = try? encoder.encode(OAuthErrorBody(error: oauth, errorDescription: error.message))
        } else if structured {
            headers[.supabaseAPIVersion] = APIVersion.current
            body = try? encoder.encode(
                APIErrorBody(
                    code: error.code, message: error.message, weakPassword: weak, reason: error.reason,
                    attemptsRemaining: error.attemptsRemaining))
        } else {
            body = try? encoder.encode(
                LegacyAPIErrorBody(
                    code: Int(status.code), errorCode: error.code, msg: error.message,
                    errorID: status.code >= 500 ? requestID : nil, weakPassword: weak.map { WeakPassword(reasons: $0.reasons) },
                    reason: error.reason, attemptsRemaining: error.attemptsRemaining))
        }
        if structured { headers[.supabaseAPIVersion] = APIVersion.current }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body ?? Data())))
    }
}

extension HTTPField.Name {
    static let supabaseAPIVersion = Self("X-Supabase-Api-Version")!
    static let sbErrorCode = Self("x-sb-error-code")!
}
