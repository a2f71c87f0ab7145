#if canImport(SwiftUI) && canImport(Observation)
    import Foundation
    import Latchkey
    import SwiftUI

    /// How ``SignInView`` looks: its colours, logo and words.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    public struct SignInTheme {
        /// The buttons' and links' colour.
        public var accent: Color
        /// The logo above the title, if any (scaled with Dynamic Type).
        public var logo: Image?
        /// What the logo shows, for VoiceOver (`nil`: decorative).
        public var logoLabel: String?
        /// The words (and their language).
        public var copy: SignInCopy
        /// The reason the Face ID prompt shows.
        public var deviceKeyReason: String
        /// The name a device key is enrolled under, as the user's list of devices shows it.
        public var deviceName: String

        /// A theme; by default the app's accent colour, no logo and the module's words.
        public init(
            accent: Color = .accentColor, logo: Image? = nil, logoLabel: String? = nil, copy: SignInCopy = SignInCopy(),
            deviceKeyReason: String? = nil, deviceName: String? = nil
        ) {
            self.accent = accent
            self.logo = logo
            self.logoLabel = logoLabel
            self.copy = copy
            self.deviceKeyReason = deviceKeyReason ?? copy(.title)
            self.deviceName = deviceName ?? copy(.upgradeDeviceKeyName)
        }
    }

    /// A native sign-in screen, Latchkey's answer to Auth0's Lock: a returning user is greeted by
    /// their masked address and signed in with the strongest way this device holds (a passkey,
    /// Face ID with the device key, else a code); a new one types an address and a code, or uses
    /// a passkey or Sign in with Apple. After a code it offers a passkey or Face ID for next time.
    ///
    /// ```swift
    /// SignInView(client: auth, theme: SignInTheme(accent: .indigo, logo: Image("Logo")))
    /// ```
    ///
    /// Everything it decides is ``SignInModel``'s; the view only draws it.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    public struct SignInView: View {
        @State private var model: SignInModel
        private let theme: SignInTheme
        @ScaledMetric(relativeTo: .largeTitle) private var logoSize: CGFloat = 56
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
            @Environment(\.authorizationController) private var authorizationController
        #endif

        /// A screen over `client` offering `methods`; `onSignedIn` runs once the user is in.
        public init(
            client: AuthClient, methods: SignInModel.Methods = .standard, theme: SignInTheme = SignInTheme(),
            onSignedIn: (@MainActor (Session) -> Void)? = nil
        ) {
            let model = SignInModel(client: client, methods: methods)
            model.onSignedIn = onSignedIn
            self.init(model: model, theme: theme)
        }

        /// A screen over a model of the app's (to test it, or to read its state elsewhere).
        public init(model: SignInModel, theme: SignInTheme = SignInTheme()) {
            _model = State(initialValue: model)
            self.theme = theme
        }

        public var body: some View {
            VStack(alignment: .center, spacing: 16) {
                header
                if let notice = model.notice {
                    Text(verbatim: text(for: notice))
                        .font(.callout)
                        .foregroundStyle(Color.secondary)
                        .multilineTextAlignment(.center)
                        .accessibilityLabel(Text(verbatim: copy(.a11yNotice) + ": " + text(for: notice)))
                }
                screen
                if model.isWorking {
                    ProgressView().accessibilityLabel(Text(verbatim: copy(.a11yWorking)))
                }
            }
            .padding()
            .tint(theme.accent)
            .disabled(model.isWorking)
            .task { await model.load() }
        }

        private var copy: SignInCopy { theme.copy }

        @ViewBuilder private var header: some View {
            if let logo = theme.logo {
                if let label = theme.logoLabel {
                    logo.resizable().scaledToFit().frame(width: logoSize, height: logoSize).accessibilityLabel(Text(verbatim: label))
                } else {
                    logo.resizable().scaledToFit().frame(width: logoSize, height: logoSize).accessibilityHidden(true)
                }
            }
            Text(verbatim: title).font(.title.bold()).accessibilityAddTraits(.isHeader)
        }

        private var title: String {
            switch model.screen {
            case .welcomeBack: copy(.welcomeTitle)
            case .code: copy(.codeTitle)
            case .upgrade(.registerPasskey, _): copy(.upgradePasskeyTitle)
            case .upgrade(.enrollDeviceKey, _): copy(.upgradeDeviceKeyTitle)
            case .loading, .choices, .signedIn: copy(.title)
            }
        }

        @ViewBuilder private var screen: some View {
            switch model.screen {
            case .loading, .signedIn: EmptyView()
            case .welcomeBack(let user): welcomeBack(user)
            case .choices: choices
            case .code(let sent): CodeEntry(model: model, sent: sent, copy: copy)
            case .upgrade(let upgrade, _): upgradeOffer(upgrade)
            }
        }

        private func welcomeBack(_ user: ReturningUser) -> some View {
            VStack(spacing: 12) {
                Text(verbatim: copy(.welcomeSubtitle, user.maskedAddress)).font(.body)
                Button {
                    Task { await model.continueAsReturningUser(steps: steps) }
                } label: {
                    Text(verbatim: copy(.welcomeContinue)).frame(maxWidth: .infinity)
                }
                .buttonStyle(.borderedProminent)
                Button {
                    Task { await model.sendCodeToReturningUser() }
                } label: {
                    Text(verbatim: copy(.welcomeSendCode, user.maskedAddress))
                }
                Button {
                    model.useAnotherAccount()
                } label: {
                    Text(verbatim: copy(.welcomeAnotherAccount))
                }
            }
        }

        private var choices: some View {
            VStack(spacing: 12) {
                AddressField(model: model, copy: copy)
                Button {
                    Task { await model.sendCode() }
                } label: {
                    Text(verbatim: copy(.choicesSendCode)).frame(maxWidth: .infinity)
                }
                .buttonStyle(.borderedProminent)
                Text(verbatim: copy(.choicesOr)).font(.footnote).foregroundStyle(Color.secondary)
                if model.deviceKeyHere {
                    Button {
                        Task { await model.signIn { try await $0.signInWithDeviceKey(reason: theme.deviceKeyReason) } }
                    } label: {
                        Label(copy(.choicesDeviceKey), systemImage: "faceid")
                    }
                }
                platformButtons
            }
        }

        @ViewBuilder private var platformButtons: some View {
            #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
                if model.methods.contains(.passkey) {
                    Button {
                        let controller = authorizationController
                        Task { await model.signIn { try await $0.signInWithPasskey(using: controller) } }
                    } label: {
                        Label(copy(.choicesPasskey), systemImage: "person.badge.key")
                    }
                }
                if model.methods.contains(.apple) {
                    Button {
                        let controller = authorizationController
                        Task { await model.signIn { try await $0.signInWithApple(using: controller) } }
                    } label: {
                        Label(copy(.choicesApple), systemImage: "apple.logo")
                    }
                }
            #endif
        }

        private func upgradeOffer(_ upgrade: SignInUpgrade) -> some View {
            VStack(spacing: 12) {
                Text(verbatim: copy(upgrade == .registerPasskey ? .upgradePasskeyBody : .upgradeDeviceKeyBody))
                    .multilineTextAlignment(.center)
                Button {
                    Task { await model.acceptUpgrade(add(upgrade)) }
                } label: {
                    Text(verbatim: copy(upgrade == .registerPasskey ? .upgradePasskeyAccept : .upgradeDeviceKeyAccept))
                        .frame(maxWidth: .infinity)
                }
                .buttonStyle(.borderedProminent)
                Button {
                    model.declineUpgrade()
                } label: {
                    Text(verbatim: copy(.upgradeDecline))
                }
            }
        }

        /// What accepting the offer does.
        private func add(_ upgrade: SignInUpgrade) -> @MainActor (AuthClient) async throws -> Void {
            let name = theme.deviceName
            #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
                if upgrade == .registerPasskey {
                    let controller = authorizationController
                    return { _ = try await $0.registerPasskey(using: controller) }
                }
            #endif
            return { _ = try await $0.deviceKeys.enroll(name: name) }
        }

        /// The returning-user chain's steps: a passkey through SwiftUI's controller where there are
        /// passkeys, then the device key.
        private var steps: [ReturningUserStep] {
            #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
                return ReturningUserStep.standard(using: authorizationController, reason: theme.deviceKeyReason)
            #else
                return [.deviceKey(reason: theme.deviceKeyReason)]
            #endif
        }

        private func text(for notice: SignInModel.Notice) -> String {
            SignInModel.text(for: notice, copy: copy)
        }
    }

    /// The address or number field.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    struct AddressField: View {
        @Bindable var model: SignInModel
        let copy: SignInCopy

        var body: some View {
            TextField(copy(model.usesPhone ? .choicesPhone : .choicesEmail), text: $model.address)
                .addressEntry(phone: model.usesPhone)
                .onSubmit { Task { await model.sendCode() } }
        }
    }

    /// The code field, where it was sent, the tries left and the resend countdown.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    struct CodeEntry: View {
        @Bindable var model: SignInModel
        let sent: CodeRequired
        let copy: SignInCopy

        var body: some View {
            VStack(spacing: 12) {
                Text(verbatim: copy(.codeSentTo, sent.sentTo)).multilineTextAlignment(.center)
                TextField(copy(.codeField), text: $model.code)
                    .codeEntry()
                    .accessibilityLabel(Text(verbatim: copy(.a11yCodeField)))
                    .onSubmit { Task { await model.submitCode() } }
                Button {
                    Task { await model.submitCode() }
                } label: {
                    Text(verbatim: copy(.codeSubmit)).frame(maxWidth: .infinity)
                }
                .buttonStyle(.borderedProminent)
                TimelineView(.periodic(from: .now, by: 1)) { context in
                    let wait = model.secondsUntilResend(at: context.date) ?? 0
                    Button {
                        Task { await model.resend() }
                    } label: {
                        Text(verbatim: wait > 0 ? copy(.codeResendIn, wait) : copy(.codeResend))
                    }
                    .disabled(wait > 0)
                }
                Button {
                    model.back()
                } label: {
                    Text(verbatim: copy(.codeBack))
                }
            }
        }
    }

    extension View {
        /// An address field: no capitals or corrections, the email or phone keyboard and autofill.
        func addressEntry(phone: Bool) -> some View {
            #if canImport(UIKit) && !os(watchOS)
                self.textContentType(phone ? .telephoneNumber : .emailAddress)
                    .keyboardType(phone ? .phonePad : .emailAddress)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
            #else
                self.autocorrectionDisabled()
            #endif
        }

        /// A one-time code field: the code from Messages or Mail offered above the keyboard.
        func codeEntry() -> some View {
            #if canImport(UIKit) && !os(watchOS)
                self.textContentType(.oneTimeCode).keyboardType(.numberPad)
            #else
                self
            #endif
        }
    }
#endif
