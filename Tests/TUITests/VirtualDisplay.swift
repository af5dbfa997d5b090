import Foundation
import KeyshelfTestSupport
import Testing

/// A private X server (`Xvfb -displayfd`) and the real `xclip` to read and
/// set its CLIPBOARD selection, for the clipboard tests (scripts/deps.sh
/// installs both; tests skip with a reason when they are missing).
final class VirtualDisplay {
    static let xvfb = "/usr/bin/Xvfb"
    static let xclip = "/usr/bin/xclip"
    /// Why the X clipboard tests cannot run here, or nil when they can.
    static var missing: String? {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: xvfb), fm.isExecutableFile(atPath: xclip) else {
            return "needs Xvfb and xclip (Debian: xvfb, xclip; scripts/deps.sh installs them)"
        }
        return nil
    }

    /// `:N`, for `DISPLAY`.
    let display: String
    private let server: pid_t

    init() throws {
        let numberFile = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-xvfb-\(UUID().uuidString)").path
        defer { unlink(numberFile) }
        server = try TestProcess.spawn([Self.xvfb, "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x240x8"], output: numberFile)
        // Xvfb writes the display number once it accepts clients.
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while !text.contains("\n"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            text = (try? String(contentsOfFile: numberFile, encoding: .utf8)) ?? ""
        }
        guard text.contains("\n") else {
            kill(server, SIGKILL)
            TestProcess.wait(server)
            throw TestProcessError(message: "Xvfb did not print its display number")
        }
        display = ":" + text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the CLIPBOARD selection holds now; "" when nobody owns it.
    func clipboard() throws -> String {
        let result = try TestProcess.run([Self.xclip, "-selection", "clipboard", "-out"], environment: ["DISPLAY=\(display)"])
        return result.status == 0 ? result.stdout : ""
    }

    /// Copies `text` as a user would (`xclip -in`, which forks a server that owns the selection),
    /// and waits until the X server says so: xclip exits before its server has flushed the ownership.
    func copy(_ text: String) throws {
        _ = try TestProcess.run([Self.xclip, "-selection", "clipboard", "-in"], input: text, environment: ["DISPLAY=\(display)"])
        _ = try waitForClipboard { $0 == text }
    }

    /// Polls the clipboard until `condition` holds (at most `timeout` seconds); returns what it holds then.
    func waitForClipboard(timeout: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var current = try clipboard()
        while !condition(current), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            current = try clipboard()
        }
        return current
    }

    /// Polls until the clipboard no longer holds `value`; returns what it holds then.
    func waitUntilClipboard(isNot value: String) throws -> String {
        try waitForClipboard { $0 != value }
    }

    deinit {
        kill(server, SIGTERM)
        TestProcess.wait(server)
    }
}
