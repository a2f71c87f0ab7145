import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOHTTP1

/// Sends SMS and WhatsApp messages through Twilio's Messages API
/// (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded, HTTP Basic auth).
public struct TwilioSMSSender: SMSSender {
    public let configuration: TwilioConfiguration
    let client: HTTPClient

    public init(configuration: TwilioConfiguration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.client = client
    }

    public var providerName: String { "twilio" }

    public func send(to phone: String, body: String, channel: String) async throws -> String {
        let prefix = channel == "whatsapp" ? "whatsapp:" : ""
        var form = [("To", "\(prefix)+\(phone)"), ("Body", body)]
        if configuration.sender.hasPrefix("MG") {
            form.append(("MessagingServiceSid", configuration.sender))
        } else {
            form.append(("From", prefix + configuration.sender))
        }
        let base = configuration.apiURL.hasSuffix("/") ? String(configuration.apiURL.dropLast()) : configuration.apiURL
        var request = HTTPClientRequest(url: "\(base)/2010-04-01/Accounts/\(Self.encode(configuration.accountSID))/Messages.json")
        request.method = .POST
        let login = "\(configuration.apiKey ?? configuration.accountSID):\(configuration.apiSecret ?? configuration.authToken ?? "")"
        request.headers.add(name: "Authorization", value: "Basic \(Data(login.utf8).base64EncodedString())")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: form.map { "\($0.0)=\(Self.encode($0.1))" }.joined(separator: "&")))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: TimeAmount(configuration.timeout))
        } catch {
            throw TwilioError(status: nil, code: nil, message: "Twilio could not be reached: \(error)")
        }
        let data = try await response.body.collect(upTo: 1 << 20)
        let json = try? JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any]
        guard (200..<300).contains(response.status.code), let sid = json?["sid"] as? String else {
            throw TwilioError(
                status: Int(response.status.code), code: json?["code"] as? Int,
                message: (json?["message"] as? String) ?? "unexpected answer from Twilio")
        }
        return sid
    }

    /// Percent-encodes a form value (RFC 3986 unreserved characters stay).
    static func encode(_ value: String) -> String { FormEncoding.component(value) }
}

/// Twilio refused a message, or could not be reached.
public struct TwilioError: Error, CustomStringConvertible {
    /// The HTTP status, when Twilio answered.
    public let status: Int?
    /// Twilio's error code (e.g. 21211 for an invalid `To` number), when it sent one.
    public let code: Int?
    public let message: String

    public var description: String {
        "twilio" + (status.map { " \($0)" } ?? "") + (code.map { " (code \($0))" } ?? "") + ": \(message)"
    }
}
