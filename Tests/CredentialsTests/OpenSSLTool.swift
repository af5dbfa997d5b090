import Foundation
import KeyshelfTestSupport
import KeyshelfCredentials

/// Runs the `openssl` command-line tool for tests that make keys and tokens
/// independently of the code under test (issue 19). Its directory is removed with it.
final class OpenSSLTool {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-siwa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `openssl arguments…`; returns standard output. Throws when it exits non-zero.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil) throws -> Data {
        let result = try Program.run("/usr/bin/openssl", arguments, stdin: stdin, environment: nil)
        guard result.status == 0 else { throw ToolError(arguments: arguments) }
        return result.stdoutData
    }

    struct ToolError: Error { var arguments: [String] }

    /// A new P-256 key as PKCS#8 PEM (what Apple's `.p8` files hold).
    func p256Key(_ name: String = "key.p8") throws -> String {
        try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name)])
        return path(name)
    }

    /// A new RSA-2048 key (PEM) and its JWK modulus and exponent (base64url).
    func rsaKey(_ name: String = "rsa.pem") throws -> (path: String, n: String, e: String) {
        try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path(name)])
        let text = String(decoding: try run(["rsa", "-in", path(name), "-noout", "-modulus"]), as: UTF8.self)
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return (path(name), Base64URL.encode(bytes), "AQAB")
    }

    /// `message` signed with the RSA key at `keyPath` (RS256: SHA-256, PKCS#1 v1.5).
    func rs256(_ message: String, keyPath: String) throws -> [UInt8] {
        try Data(message.utf8).write(to: directory.appendingPathComponent("message"))
        return Array(try run(["dgst", "-sha256", "-sign", keyPath, path("message")]))
    }

    /// A JWT over `header` and `claims` (JSON text), signed RS256 with `keyPath`.
    func token(header: String, claims: String, keyPath: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try rs256(input, keyPath: keyPath))
    }
}

/// The JOSE `r ‖ s` ECDSA signature as DER, for `openssl dgst -verify`.
func derSignature(jose: [UInt8]) -> [UInt8] {
    func integer(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = Array(raw.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02, UInt8(bytes.count)] + bytes
    }
    let body = integer(jose[0..<32]) + integer(jose[32..<64])
    return [0x30, UInt8(body.count)] + body
}
