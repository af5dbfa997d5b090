import CCurl
import Foundation
import KeyshelfCrypto

/// One HTTPS GET with libcurl for the association file (issue 18 item 3):
/// https only, no redirect followed (a 3xx is returned as it came), the body
/// capped in the write callback (a chunked answer cannot grow past it), a
/// time-out on connecting and on the whole transfer.
///
/// Trust (`AssociationTrust`): with neither option, the system CAs and the
/// host name (`VERIFYPEER`, `VERIFYHOST`); with `caPEM`, only those
/// certificates (`CURLOPT_CAINFO_BLOB`, the system path cleared), host name
/// checked; with `pin` alone, the public key must match
/// (`CURLOPT_PINNEDPUBLICKEY`) and the chain is not checked (a self-signed
/// certificate the user pinned); with both, both.
public struct HTTPSFetch: Sendable {
    /// An answer: status, headers that matter, body.
    public struct Response: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The `Content-Type` header, if any.
        public var contentType: String?
        /// Where a 3xx pointed (`Location`), not followed.
        public var redirectURL: String?
        /// The body, at most `maximumBodyByteCount` bytes.
        public var body: [UInt8]
    }

    public var trust: AssociationTrust
    /// Whole-transfer time-out in seconds (`CURLOPT_TIMEOUT`); connecting gets at most half of it.
    public var timeoutSeconds: Int
    /// Largest body accepted, in bytes.
    public var maximumBodyByteCount: Int

    public init(trust: AssociationTrust, timeoutSeconds: Int = 10, maximumBodyByteCount: Int = AASAFile.maximumByteCount) {
        self.trust = trust
        self.timeoutSeconds = timeoutSeconds
        self.maximumBodyByteCount = maximumBodyByteCount
    }

    /// `curl_global_init`, once, before the first handle.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Fetches `url` (which must be https).
    /// - Throws: `AssociationError.fileTooLarge` when the body would pass the
    ///   cap; `.network` naming the host and libcurl's reason (not reached,
    ///   certificate not trusted, pin mismatch, time-out).
    public func get(_ url: String) throws(AssociationError) -> Response {
        try send(url) { _ in }
    }

    /// A credential sent by `send(_:credential:)` (the login check over HTTPS).
    public enum Credential {
        /// HTTP Basic (`CURLOPT_USERNAME`, `CURLOPT_PASSWORD`; only after the TLS handshake).
        case basic(user: String, password: Secret)
        /// A `application/x-www-form-urlencoded` POST body, in sodium memory.
        case form(SecureBytes)
    }

    /// Sends `credential` to `url`: Basic on a GET, or the form as a POST.
    /// The secret's bytes go to libcurl from sodium memory, never a `String`.
    /// - Throws: as `get`.
    public func send(_ url: String, credential: Credential) throws(AssociationError) -> Response {
        switch credential {
        case let .basic(user, password):
            let terminated = SecureBytes(byteCount: password.byteCount + 1)
            terminated.withUnsafeMutableBytes { out in
                password.withUnsafeBytes { out.copyMemory(from: $0) }
                out[password.byteCount] = 0
            }
            return try send(url) { handle in
                keyshelf_curl_setopt_long(handle, CURLOPT_HTTPAUTH, keyshelf_curlauth_basic)
                keyshelf_curl_setopt_string(handle, CURLOPT_USERNAME, user)
                terminated.withUnsafeBytes { _ = keyshelf_curl_setopt_pointer(handle, CURLOPT_PASSWORD, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
            }
        case let .form(body):
            return try send(url) { handle in
                keyshelf_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.byteCount)
                body.withUnsafeBytes { _ = keyshelf_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
            }
        }
    }

    /// One request; `configure` adds its options (they may point into
    /// buffers the caller keeps alive until this returns).
    private func send(_ url: String, configure: (UnsafeMutableRawPointer) -> Void) throws(AssociationError) -> Response {
        _ = Self.globalInit
        guard url.lowercased().hasPrefix("https://") else { throw AssociationError(.network, "\(url) is not an https URL") }
        guard let handle = curl_easy_init() else { throw AssociationError(.network, "libcurl could not start a request") }
        defer { curl_easy_cleanup(handle) }
        let body = Body(limit: maximumBodyByteCount)
        let headers = curl_slist_append(nil, "Accept: application/json")
        defer { curl_slist_free_all(headers) }
        keyshelf_curl_setopt_string(handle, CURLOPT_URL, url)
        keyshelf_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https")
        keyshelf_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        keyshelf_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        keyshelf_curl_setopt_long(handle, CURLOPT_TIMEOUT, timeoutSeconds)
        keyshelf_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, max(1, timeoutSeconds / 2))
        keyshelf_curl_setopt_string(handle, CURLOPT_USERAGENT, "keyshelf")
        keyshelf_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers)
        let pinOnly = trust.pin != nil && trust.caPEM == nil
        keyshelf_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, pinOnly ? 0 : 1)
        keyshelf_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, pinOnly ? 0 : 2)
        if let pin = trust.pin { keyshelf_curl_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, pin) }
        if let pem = trust.caPEM {
            keyshelf_curl_setopt_string(handle, CURLOPT_CAPATH, nil)
            let bytes = Array(pem.utf8)
            bytes.withUnsafeBytes { _ = keyshelf_curl_setopt_blob(handle, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
        }
        configure(handle)
        keyshelf_curl_setopt_write(handle) { data, size, count, context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard body.bytes.count + n <= body.limit else {
                body.overflowed = true
                return 0
            }
            body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
            return n
        }
        let code = withExtendedLifetime(body) {
            keyshelf_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(body).toOpaque())
            return curl_easy_perform(handle)
        }
        if body.overflowed {
            throw AssociationError(.fileTooLarge, "\(url) sent more than \(maximumBodyByteCount) bytes (the limit is 128 KB); the transfer was stopped")
        }
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            let hint = code == CURLE_OPERATION_TIMEDOUT ? " (after \(timeoutSeconds) s)" : ""
            throw AssociationError(.network, "\(url) could not be fetched: \(reason)\(hint)")
        }
        var status = 0
        keyshelf_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return Response(status: status, contentType: Self.string(handle, CURLINFO_CONTENT_TYPE),
                        redirectURL: Self.string(handle, CURLINFO_REDIRECT_URL), body: body.bytes)
    }

    private static func string(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard keyshelf_curl_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

/// A response body as libcurl delivers it, with its cap.
private final class Body {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false
    init(limit: Int) { self.limit = limit }
}
