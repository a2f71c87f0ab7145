import Foundation
import LatchkeyAPI

/// What `POST /signup` answers: a session when no confirmation is needed, else the user.
public enum SignUpResult: Sendable {
    case session(Session)
    case user(User)
}
