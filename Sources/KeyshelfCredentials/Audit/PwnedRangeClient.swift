import CCurl
import Foundation

/// The Have I Been Pwned k-anonymity range API over HTTPS (libcurl; the only
/// user of `CCurl`), used only when asked (`keyshelf audit --online`).
///
/// Sends nothing but the first 5 hex digits of each password's SHA-1, one
/// request per distinct prefix, with `Add-Padding: true` (the answer is padded
/// with `SUFFIX:0` lines so its size says nothing; those lines are dropped).
/// HTTPS only, no redirects, `parallelism` requests at a time, each bounded by
/// `timeoutSeconds`.
public struct PwnedRangeClient: PwnedPasswordsSource, Sendable {
    /// The official range endpoint; the prefix is appended.
    public static let defaultBaseURL = "https://api.pwnedpasswords.com/range/"
    /// Environment variable that replaces `defaultBaseURL`, for tests against a loopback server.
    public static let baseURLVariable = "KEYSHELF_HIBP_RANGE_URL"
    /// Largest answer accepted, in bytes (a padded answer is about 40 KB).
    static let maximumBodyByteCount = 4 << 20

    public var baseURL: String
    /// A PEM file of certificates to trust instead of the system's (`CURLOPT_CAINFO`).
    public var caInfo: String?
    /// Requests in flight at once.
    public var parallelism = 4
    /// Whole-request time-out in seconds (`CURLOPT_TIMEOUT`); connecting gets a third of it.
    public var timeoutSeconds = 30

    public init(baseURL: String = defaultBaseURL, caInfo: String? = nil) {
        self.baseURL = baseURL
        self.caInfo = caInfo
    }

    public func breachCounts(of digests: [[UInt8]]) throws -> [Int] {
        guard baseURL.lowercased().hasPrefix("https://") else {
            throw AuditError(.network, "the range API must be reached over https, not \(baseURL)")
        }
        let hex = digests.map { String(decoding: PwnedHex.upperHex($0), as: UTF8.self) }
        let prefixes = Array(Set(hex.map { String($0.prefix(5)) })).sorted()
        let answers = try fetchAll(prefixes)
        return hex.map { answers[String($0.prefix(5))]?[String($0.dropFirst(5))] ?? 0 }
    }

    /// Every prefix's suffix counts, fetched by `parallelism` worker threads.
    private func fetchAll(_ prefixes: [String]) throws -> [String: [String: Int]] {
        _ = Self.globalInit
        let work = RangeWork(prefixes)
        let group = DispatchGroup()
        for _ in 0..<min(parallelism, prefixes.count) {
            group.enter()
            let client = self
            Thread.detachNewThread {
                while let prefix = work.next() {
                    work.finish(prefix, Result { try client.fetch(prefix) })
                }
                group.leave()
            }
        }
        group.wait()
        return try work.results()
    }

    /// `curl_global_init`, once, before any thread makes a handle.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// One range request: `SUFFIX:COUNT` lines, padding dropped.
    private func fetch(_ prefix: String) throws -> [String: Int] {
        guard let handle = curl_easy_init() else { throw AuditError(.network, "libcurl could not start a request") }
        defer { curl_easy_cleanup(handle) }
        let body = ResponseBody()
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Add-Padding: true")
        defer { curl_slist_free_all(headers) }
        headers = curl_slist_append(headers, "User-Agent: keyshelf")
        let url = baseURL + prefix
        keyshelf_curl_setopt_string(handle, CURLOPT_URL, url)
        keyshelf_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https")
        keyshelf_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        keyshelf_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        keyshelf_curl_setopt_long(handle, CURLOPT_TIMEOUT, timeoutSeconds)
        keyshelf_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, max(1, timeoutSeconds / 3))
        keyshelf_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers)
        if let caInfo { keyshelf_curl_setopt_string(handle, CURLOPT_CAINFO, caInfo) }
        keyshelf_curl_setopt_write(handle) { data, size, count, context in
            let body = Unmanaged<ResponseBody>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard body.bytes.count + n <= PwnedRangeClient.maximumBodyByteCount else { return 0 }
            body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
            return n
        }
        let code = withExtendedLifetime(body) {
            keyshelf_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(body).toOpaque())
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            throw AuditError(.network, "the range API at \(url) could not be reached: \(String(cString: curl_easy_strerror(code)))")
        }
        var status = 0
        keyshelf_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status == 200 else { throw AuditError(.network, "the range API at \(url) answered HTTP \(status)") }
        var counts: [String: Int] = [:]
        for line in body.bytes.split(separator: 0x0A) {
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            guard let parsed = PwnedHex.parse(trimmed, hashLength: 35) else {
                throw AuditError(.network, "the range API at \(url) answered a line that is not SUFFIX:COUNT")
            }
            if parsed.count > 0 { counts[String(decoding: parsed.hash, as: UTF8.self)] = parsed.count }
        }
        return counts
    }
}

/// A response body as libcurl delivers it.
private final class ResponseBody {
    var bytes: [UInt8] = []
}

/// The prefixes still to fetch and the answers so far, shared by the worker threads.
private final class RangeWork: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [String]
    private var answers: [String: Result<[String: Int], any Error>] = [:]
    private var failed = false

    init(_ prefixes: [String]) { pending = prefixes.reversed() }

    /// The next prefix, or nil when all are taken or one request failed.
    func next() -> String? {
        lock.withLock { failed ? nil : pending.popLast() }
    }

    func finish(_ prefix: String, _ result: Result<[String: Int], any Error>) {
        lock.withLock {
            answers[prefix] = result
            if case .failure = result { failed = true }
        }
    }

    /// The answers by prefix; the first failure is thrown.
    func results() throws -> [String: [String: Int]] {
        try lock.withLock { try answers.mapValues { try $0.get() } }
    }
}
