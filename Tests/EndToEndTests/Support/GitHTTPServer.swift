import Foundation
import KeyshelfTestSupport

/// A git server on 127.0.0.1 that requires HTTP Basic auth: a small Python
/// `http.server` that checks the Authorization header and hands the request
/// to `git http-backend` (CGI). Started on a free port, stopped by `stop()`.
final class GitHTTPServer: @unchecked Sendable {
    let port: Int
    private let process: Process

    /// Serves the bare repositories under `projectRoot`, accepting only `user`:`password`.
    init(projectRoot: URL, user: String, password: String) throws {
        let script = projectRoot.deletingLastPathComponent().appendingPathComponent("git-http-server.py")
        try Data(Self.script.utf8).write(to: script)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path]
        process.environment = [
            "PATH": "/usr/bin:/bin",
            "GIT_PROJECT_ROOT": projectRoot.path,
            "EXPECTED_USER": user,
            "EXPECTED_PASSWORD": password,
        ]
        let portFile = projectRoot.deletingLastPathComponent().appendingPathComponent("git-http-server.port")
        process.environment?["PORT_FILE"] = portFile.path
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        // The script writes the port it bound to a file (renamed into place), then serves.
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { usleep(25_000) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw SetupError(run: Run(status: -1, stdoutData: Data(), stderr: "the git http server did not start"))
        }
        self.port = port
    }

    /// Kills the server. SIGKILL, because a child started from a test
    /// thread may inherit a signal mask that blocks SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    private static let script = #"""
        import base64, http.server, os, subprocess, sys

        ROOT = os.environ["GIT_PROJECT_ROOT"]
        EXPECTED = "Basic " + base64.b64encode(
            (os.environ["EXPECTED_USER"] + ":" + os.environ["EXPECTED_PASSWORD"]).encode()).decode()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self): self.serve()
            def do_POST(self): self.serve()

            def serve(self):
                if self.headers.get("Authorization") != EXPECTED:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="keyshelf-test"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                body = b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    while True:
                        size = int(self.rfile.readline().strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        body += self.rfile.read(size)
                        self.rfile.readline()
                else:
                    body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = dict(os.environ,
                    GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, QUERY_STRING=query,
                    REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                    CONTENT_LENGTH=str(len(body)), REMOTE_USER=os.environ["EXPECTED_USER"],
                    REMOTE_ADDR="127.0.0.1", GIT_PROTOCOL=self.headers.get("Git-Protocol", ""),
                    HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""))
                out = subprocess.run(["git", "http-backend"], input=body, env=env,
                                     capture_output=True).stdout
                sep = out.find(b"\r\n\r\n")
                head, rest = (out[:sep], out[sep + 4:]) if sep >= 0 else out.split(b"\n\n", 1)
                status, headers = 200, []
                for line in head.decode().replace("\r", "").split("\n"):
                    if not line:
                        continue
                    key, _, value = line.partition(":")
                    if key.lower() == "status":
                        status = int(value.strip().split()[0])
                    else:
                        headers.append((key, value.strip()))
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                self.wfile.write(rest)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        with open(os.environ["PORT_FILE"] + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(os.environ["PORT_FILE"] + ".tmp", os.environ["PORT_FILE"])
        server.serve_forever()
        """#
}
