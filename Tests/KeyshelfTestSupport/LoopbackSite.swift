import Foundation

/// An HTTPS server on 127.0.0.1 (Python's `http.server` and `ssl`) with a
/// certificate made here by `openssl req`, answering each path as its
/// `Route` says (404 otherwise). For the association tests (issue 18):
/// nothing leaves the loopback interface. `stop()` ends it.
public final class LoopbackSite {
    /// How one path answers.
    public struct Route: Encodable {
        public var status: Int
        public var body: String
        /// The body is `body` repeated this many times.
        public var repeatCount: Int
        public var type: String?
        public var location: String?
        /// Seconds to wait before answering.
        public var delay: Double
        /// Sent with `Transfer-Encoding: chunked` (no `Content-Length`).
        public var chunked: Bool
        /// A file whose bytes are the body instead of `body` (binary answers).
        public var bodyFile: String?
        /// When set, the request must carry exactly this `Authorization` header
        /// (GET) or this body (POST), else the answer is 401.
        public var expect: String?

        public init(status: Int = 200, body: String = "", repeatCount: Int = 1, type: String? = "application/json",
                    location: String? = nil, delay: Double = 0, chunked: Bool = false, bodyFile: String? = nil) {
            self.status = status
            self.body = body
            self.repeatCount = repeatCount
            self.type = type
            self.location = location
            self.delay = delay
            self.chunked = chunked
            self.bodyFile = bodyFile
        }

        /// 200 only for a request carrying `credential` (see `expect`), else 401.
        public static func requiring(_ credential: String) -> Route {
            var route = Route(body: "ok", type: "text/plain")
            route.expect = credential
            return route
        }

        /// A 200 whose file lists `apps` in `webcredentials.apps`.
        public static func listing(_ apps: [String]) -> Route {
            let list = apps.map { "\"\($0)\"" }.joined(separator: ",")
            return Route(body: #"{"applinks":{"details":[]},"webcredentials":{"apps":[\#(list)]}}"#)
        }
    }

    static let script = #"""
    import http.server, json, ssl, sys, time
    routes = json.load(open(sys.argv[3]))
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def do_POST(self):
            sent = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            self.answer(sent)
        def do_GET(self):
            self.answer(self.headers.get("Authorization"))
        def answer(self, sent):
            r = routes.get(self.path, {"status": 404, "body": "", "repeatCount": 1, "delay": 0, "chunked": False})
            if r.get("expect") is not None and sent != r["expect"]: r = dict(r, status=401)
            if r["delay"]: time.sleep(r["delay"])
            body = open(r["bodyFile"], "rb").read() if r.get("bodyFile") else (r["body"] * r["repeatCount"]).encode()
            self.send_response(r["status"])
            if r.get("type"): self.send_header("Content-Type", r["type"])
            if r.get("location"): self.send_header("Location", r["location"])
            if r["chunked"]:
                self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
                for i in range(0, len(body), 8192):
                    c = body[i:i + 8192]; self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
        def log_message(self, *a): pass
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    httpd.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()
    """#

    /// The certificate (PEM), valid for IP 127.0.0.1, self-signed.
    public let certificatePath: String
    /// Its private key (PEM).
    public let keyPath: String
    /// `sha256//BASE64` of the certificate's public key.
    public let pin: String
    /// The port the server listens on.
    public let port: Int
    /// `127.0.0.1:PORT`, the DOMAIN to associate.
    public var domain: String { "127.0.0.1:\(port)" }
    private let server: Process

    /// Makes a certificate in `directory` and starts the server.
    public init(in directory: URL, routes: [String: Route]) throws {
        let cert = directory.appendingPathComponent("site-cert.pem").path, key = directory.appendingPathComponent("site-key.pem").path
        try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                          "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1"])
        certificatePath = cert
        keyPath = key
        pin = "sha256//" + (try Self.run("/bin/sh", ["-c", "openssl x509 -in '\(cert)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"]))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let routesFile = directory.appendingPathComponent("routes.json")
        try JSONEncoder().encode(routes).write(to: routesFile)
        let output = Pipe()
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-c", Self.script, cert, key, routesFile.path]
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(line) else {
            kill(server.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the loopback site did not start: \(line)"])
        }
        self.port = port
    }

    /// Signs `json` with this site's certificate and key as CMS SignedData
    /// (`openssl smime -sign -nodetach -outform DER`) into `path`.
    public func sign(_ json: String, to path: String) throws {
        let input = path + ".json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: input))
        try Self.run("/usr/bin/openssl", ["smime", "-sign", "-nodetach", "-binary", "-outform", "DER", "-signer", certificatePath,
                                          "-inkey", keyPath, "-in", input, "-out", path])
    }

    /// Ends the server and waits for it. SIGKILL: a child of the test
    /// process inherits its blocked signal mask, SIGTERM included.
    public func stop() {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    deinit { if server.isRunning { stop() } }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments.first ?? "") failed"])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
