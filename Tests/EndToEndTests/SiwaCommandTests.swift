import Foundation
import KeyshelfTestSupport
import Testing

/// `keyshelf siwa` through the real binary: keys made with `openssl`, the
/// client secret checked with `openssl dgst -verify` (issue 19 item 2).
@Suite struct SiwaCommandTests {
    func openssl(_ arguments: [String], stdin: Data? = nil) throws -> Run {
        try Program.run("/usr/bin/openssl", arguments, stdin: stdin, environment: ["PATH": "/usr/bin:/bin"])
    }

    func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func unbase64url(_ text: Substring) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s += String(repeating: "=", count: (4 - s.count % 4) % 4)
        return Data(base64Encoded: s).map(Array.init)
    }

    func vaultWithKey() throws -> (TestVault, String) {
        let vault = try TestVault()
        let key = vault.root.appendingPathComponent("AuthKey_ABC123DEFG.p8").path
        #expect(try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key]).status == 0)
        let added = try vault.run(["siwa", "key", "add", "ABC123DEFG", "--team-id", "TEAM123456", "--label", "web"],
                                  stdin: try String(contentsOfFile: key, encoding: .utf8))
        #expect(added.status == 0, "\(added)")
        return (vault, key)
    }

    @Test func aKeptKeyMintsAClientSecretThatOpenSSLVerifies() throws {
        let (vault, key) = try vaultWithKey()
        let list = try vault.run(["siwa", "key", "list"])
        #expect(list.stdout == "ABC123DEFG\tTEAM123456\tweb\n", "\(list)")
        #expect(!list.stdout.contains("PRIVATE") && !list.stderr.contains("PRIVATE"))
        let minted = try vault.run(["siwa", "client-secret", "ABC123DEFG", "--client-id", "com.example.web", "--days", "30"])
        #expect(minted.status == 0, "\(minted)")
        let parts = minted.stdout.trimmingCharacters(in: .newlines).split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Data(try #require(unbase64url(parts[0])))) as? [String: Any]
        #expect(header?["alg"] as? String == "ES256" && header?["kid"] as? String == "ABC123DEFG")
        let claimBytes = try #require(unbase64url(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
        #expect(claims["iss"] as? String == "TEAM123456" && claims["sub"] as? String == "com.example.web")
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 30 * 86_400)
        let signature = try #require(unbase64url(parts[2]))
        #expect(signature.count == 64)
        // JOSE r‖s to DER for openssl.
        func integer(_ raw: ArraySlice<UInt8>) -> [UInt8] {
            var bytes = Array(raw.drop { $0 == 0 })
            if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
            return [0x02, UInt8(bytes.count)] + bytes
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        let der = vault.root.appendingPathComponent("sig.der"), input = vault.root.appendingPathComponent("input")
        let pub = vault.root.appendingPathComponent("pub.pem").path
        try Data([0x30, UInt8(body.count)] + body).write(to: der)
        try Data((parts[0] + "." + parts[1]).utf8).write(to: input)
        #expect(try openssl(["pkey", "-in", key, "-pubout", "-out", pub]).status == 0)
        let verified = try openssl(["dgst", "-sha256", "-verify", pub, "-signature", der.path, input.path])
        #expect(verified.status == 0 && verified.stdout.contains("Verified OK"), "\(verified)")
    }

    @Test func hostileKeysAndOptionsAreRefused() throws {
        let (vault, _) = try vaultWithKey()
        let p384 = vault.root.appendingPathComponent("p384.p8").path
        #expect(try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p384]).status == 0)
        let before = try vault.snapshot()
        let cases: [([String], String, Int32, String)] = [
            (["siwa", "key", "add", "K384", "--team-id", "TEAM123456"], try String(contentsOfFile: p384, encoding: .utf8), 1, "not P-256"),
            (["siwa", "key", "add", "KBAD", "--team-id", "TEAM123456"], "-----BEGIN PRIVATE KEY-----\nnope\n", 1, "not a PEM PKCS#8"),
            (["siwa", "key", "add", "KNONE", "--team-id", "TEAM123456"], "", 2, "standard input"),
            (["siwa", "key", "add", "K/1", "--team-id", "TEAM123456"], "x", 1, "key ID"),
            (["siwa", "key", "add", "K1"], "x", 2, "--team-id"),
            (["siwa", "client-secret", "ABC123DEFG", "--client-id", "c", "--days", "181"], "", 2, "--days"),
            (["siwa", "client-secret", "NOPE", "--client-id", "c"], "", 3, "no Sign in with Apple key"),
            (["siwa", "client-secret", "ABC123DEFG", "--client-id", "c", "--nonce", "n"], "", 2, "does not apply"),
            (["siwa", "rotate"], "", 2, "usage"),
        ]
        for (arguments, stdin, status, message) in cases {
            let result = try vault.run(arguments, stdin: stdin)
            #expect(result.status == status && result.stderr.contains(message), "\(arguments): \(result)")
            // Nothing of the key reaches the messages.
            for line in stdin.split(separator: "\n") where !line.hasPrefix("-----") && line.count > 3 {
                #expect(!result.stderr.contains(line) && !result.stdout.contains(line))
            }
        }
        #expect(try vault.snapshot() == before)
        #expect(try vault.run(["siwa", "key", "add", "ABC123DEFG", "--team-id", "T"], stdin: try String(contentsOfFile: p384, encoding: .utf8)).status == 1)
    }

    @Test func verifyChecksAnIdentityTokenAgainstAJWKSFile() throws {
        let vault = try TestVault(initialize: false)
        let key = vault.root.appendingPathComponent("rsa.pem").path
        #expect(try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key]).status == 0)
        let modulus = try openssl(["rsa", "-in", key, "-noout", "-modulus"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        var n: [UInt8] = []
        var index = modulus.startIndex
        while index < modulus.endIndex {
            let next = modulus.index(index, offsetBy: 2)
            n.append(UInt8(modulus[index..<next], radix: 16)!)
            index = next
        }
        let jwks = vault.root.appendingPathComponent("keys.json")
        try Data(#"{"keys":[{"kty":"RSA","kid":"K1","alg":"RS256","n":"\#(base64url(n))","e":"AQAB"}]}"#.utf8).write(to: jwks)
        let now = Int(Date().timeIntervalSince1970)
        func token(exp: Int) throws -> String {
            let input = base64url(Array(#"{"alg":"RS256","kid":"K1"}"#.utf8)) + "." + base64url(Array(
                #"{"iss":"https://appleid.apple.com","aud":"com.example.web","exp":\#(exp),"iat":\#(now - 10),"sub":"001.x","nonce":"abc","email":"x@privaterelay.appleid.com"}"#.utf8))
            let signed = try openssl(["dgst", "-sha256", "-sign", key], stdin: Data(input.utf8))
            return input + "." + base64url(Array(signed.stdoutData))
        }
        let valid = try vault.run(["siwa", "verify", try token(exp: now + 600), "--jwks", jwks.path, "--client-id", "com.example.web",
                                   "--nonce", "abc", "--json"])
        #expect(valid.status == 0, "\(valid)")
        let json = try valid.json() as? [String: Any]
        #expect(json?["sub"] as? String == "001.x" && json?["relay"] as? Bool == true)
        let expired = try vault.run(["siwa", "verify", try token(exp: now - 3600), "--jwks", jwks.path, "--client-id", "com.example.web"])
        #expect(expired.status == 1 && expired.stderr.contains("the exp check failed"), "\(expired)")
        let nonce = try vault.run(["siwa", "verify", try token(exp: now + 600), "--jwks", jwks.path, "--client-id", "com.example.web",
                                   "--nonce", "other"])
        #expect(nonce.status == 1 && nonce.stderr.contains("the nonce check failed"), "\(nonce)")
        let audience = try vault.run(["siwa", "verify", try token(exp: now + 600), "--jwks", jwks.path, "--client-id", "com.other"])
        #expect(audience.status == 1 && audience.stderr.contains("the aud check failed"), "\(audience)")
    }
}
