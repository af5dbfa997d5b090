import Foundation
import Testing

/// `keyshelf audit --online` against a loopback HTTPS server (Python's `ssl`
/// on 127.0.0.1, certificate made by `openssl req` here): only 5-hex-digit
/// prefixes are sent, with `Add-Padding: true`, and padding lines count for nothing.
@Suite struct AuditOnlineTests {
    static let server = #"""
    import hashlib, http.server, ssl, sys
    pwned, padded, log = sys.argv[3], sys.argv[4], open(sys.argv[5], "a")
    def suffix(p): return hashlib.sha1(p.encode()).hexdigest().upper()[5:]
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            log.write(self.path + " " + str(self.headers.get("Add-Padding")) + "\n"); log.flush()
            body = suffix(pwned) + ":1234\r\n" + suffix(padded) + ":0\r\n"
            self.send_response(200); self.end_headers(); self.wfile.write(body.encode())
        def log_message(self, *a): pass
    httpd = http.server.HTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    print(httpd.server_address[1], flush=True)
    httpd.timeout = 20
    for _ in range(8): httpd.handle_request()
    """#

    private func run(_ tool: String, _ arguments: [String], output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let output { process.standardOutput = output }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func compromisedComesFromTheRangeAPIWithPadding() throws {
        let vault = try TestVault()
        let pwned = "Hv8-Mnq-Tz3-Kp5", padded = "Yt4-pqR-8Mn-Kd3"
        try vault.add("example.com", "erin", password: pwned)
        try vault.add("example.org", "frank", password: padded)
        let cert = vault.root.appendingPathComponent("cert.pem").path, key = vault.root.appendingPathComponent("key.pem").path
        let log = vault.root.appendingPathComponent("requests.log").path
        let openssl = try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                   "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1"])
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0)
        let portPipe = Pipe()
        let server = try run("/usr/bin/python3", ["-c", Self.server, cert, key, pwned, padded, log], output: portPipe)
        defer { server.terminate() }
        let port = String(decoding: portPipe.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(port) != nil)
        let result = try vault.run(["audit", "--json", "--online", "--cainfo", cert]) {
            $0["KEYSHELF_HIBP_RANGE_URL"] = "https://127.0.0.1:\(port)/range/"
        }
        #expect(result.status == 8, "\(result)")
        let objects = try #require(try result.json() as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["account"] as? String == "erin")
        #expect(objects.first?["problems"] as? [String] == ["compromised"])
        #expect(!result.stdout.contains(pwned) && !result.stderr.contains(pwned))
        let requests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(requests.count == 2)
        for request in requests {
            let parts = request.split(separator: " ")
            #expect(parts.count == 2 && parts[1] == "true", "\(request)")
            let prefix = parts[0].dropFirst("/range/".count)
            #expect(parts[0].hasPrefix("/range/") && prefix.count == 5 && prefix.allSatisfy(\.isHexDigit), "\(request)")
        }
        // Without --cainfo the self-signed certificate is refused: exit 1, nothing reported.
        let untrusted = try vault.run(["audit", "--online"]) { $0["KEYSHELF_HIBP_RANGE_URL"] = "https://127.0.0.1:\(port)/range/" }
        #expect(untrusted.status == 1, "\(untrusted)")
        #expect(untrusted.stdout.isEmpty)
    }

    @Test func onlyHTTPSIsUsed() throws {
        let vault = try TestVault()
        try vault.add("example.com", "erin", password: "Hv8-Mnq-Tz3-Kp5")
        let result = try vault.run(["audit", "--online"]) { $0["KEYSHELF_HIBP_RANGE_URL"] = "http://127.0.0.1:9/range/" }
        #expect(result.status == 1)
        #expect(result.stderr.contains("https"))
    }
}
