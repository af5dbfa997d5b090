import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// The password audit (DESIGN §11, docs/audit.md): per account `weak`
/// (zxcvbn estimate under `PasswordStrength.weakThresholdBits`), `reused`
/// (the same password on another account, compared by a keyed BLAKE2b
/// digest under a random key made for this run and never written),
/// `compromised` (in a Have I Been Pwned list, when one is given) and
/// `insecure` (an http-only server). No terminal I/O; the password never
/// leaves sodium-allocated memory except as digests.
public struct AuditEngine {
    /// Where `compromised` is looked up; nil skips that check.
    public var pwned: (any PwnedPasswordsSource)?
    /// Below this zxcvbn estimate, in bits, a password is `weak`.
    public var weakThresholdBits: Double
    /// Estimates kept across audits; nil estimates every password on each run.
    public var strengths: StrengthCache?
    /// With `strengths`: a password whose estimate is not cached is not checked
    /// for `weak` on this run (the caller has it estimated in the background,
    /// `StrengthCache.estimateInBackground`, and audits again later).
    public var cachedStrengthsOnly = false

    public init(pwned: (any PwnedPasswordsSource)? = nil, weakThresholdBits: Double = PasswordStrength.weakThresholdBits,
                strengths: StrengthCache? = nil, cachedStrengthsOnly: Bool = false) {
        self.pwned = pwned
        self.weakThresholdBits = weakThresholdBits
        self.strengths = strengths
        self.cachedStrengthsOnly = cachedStrengthsOnly
    }

    /// Audits `subjects`; an item's `ignoredFindings` hide those problems.
    /// - Throws: the `AuditError` of the Have I Been Pwned source.
    public func audit(_ subjects: [AuditSubject]) throws -> AuditReport {
        var found = [[AuditProblem: String]](repeating: [:], count: subjects.count)

        for (i, subject) in subjects.enumerated() {
            // A Sign in with Apple account sends no password: nothing to find.
            if subject.entry.signInWithApple != nil { continue }
            if subject.entry.server.scheme == "http" {
                found[i][.insecure] = "the server is http-only: the password is sent unencrypted"
            }
            guard let bits = strength(of: subject) else { continue }
            if bits < weakThresholdBits {
                found[i][.weak] = "estimated \(Self.formatted(bits)) bits of entropy (zxcvbn), under \(Self.formatted(weakThresholdBits))"
            }
        }

        for (i, others) in Self.reuse(subjects) {
            let names = others.shown.map { "\(InertText.quoted(subjects[$0].entry.account)) on \(subjects[$0].entry.server.qualified)" }
            let more = others.count > 3 ? " and \(others.count - 3) more" : ""
            found[i][.reused] = "the same password is saved for " + names.joined(separator: ", ") + more
        }

        if let pwned {
            let withPassword = subjects.indices.filter { subjects[$0].password != nil }
            let digests = withPassword.map { subjects[$0].password!.withUnsafeBytes(SHA1.digest) }
            for (i, count) in zip(withPassword, try pwned.breachCounts(of: digests)) where count > 0 {
                found[i][.compromised] = "found in the Have I Been Pwned list (seen \(count) time\(count == 1 ? "" : "s") in breaches)"
            }
        }

        strengths?.prune(keeping: subjects)

        var findings: [AuditFinding] = []
        var ignoredCount = 0
        for (i, reasons) in found.enumerated() where !reasons.isEmpty {
            let ignoredBits = subjects[i].entry.ignoredFindings
            let all = reasons.keys.sorted()
            let ignored = all.filter { ignoredBits.contains($0.bit) }
            ignoredCount += ignored.count
            let problems = all.filter { !ignoredBits.contains($0.bit) }
            guard !problems.isEmpty else { continue }
            findings.append(AuditFinding(entry: subjects[i].entry, problems: problems,
                                         reasons: reasons.filter { problems.contains($0.key) }, ignored: ignored))
        }
        return AuditReport(findings: findings, auditedCount: subjects.count, ignoredCount: ignoredCount)
    }

    /// The zxcvbn estimate of `subject`'s password, in bits, through the cache
    /// when there is one; nil without a password or when it is not cached and
    /// `cachedStrengthsOnly` is set.
    private func strength(of subject: AuditSubject) -> Double? {
        guard let password = subject.password else { return nil }
        guard let strengths else { return StrengthCache.entropyBits(of: password, for: subject.entry) }
        return cachedStrengthsOnly ? strengths.cached(subject) : strengths.estimate(subject)
    }

    /// The other accounts with a subject's password: the first three (indices
    /// into the subjects, in listing order) and how many there are in all.
    struct Reuse: Equatable {
        var shown: [Int]
        var count: Int
    }

    /// For each subject whose password another account also has, those other
    /// accounts. One account kept in both stores (same server and account)
    /// counts once. Digests are keyed BLAKE2b under a key made here.
    /// Linear in the number of subjects: a group sharing one password is
    /// reduced once to its distinct accounts, and each member only reads the
    /// first four of them (one may be its own) and the group's account count.
    static func reuse(_ subjects: [AuditSubject]) -> [Int: Reuse] {
        let key = Random.secureBytes(GenericHash.keyByteCount)
        var groups: [[UInt8]: [Int]] = [:]
        for (i, subject) in subjects.enumerated() {
            guard let password = subject.password, password.byteCount > 0 else { continue }
            groups[password.withUnsafeBytes { GenericHash.hash($0, key: key) }, default: []].append(i)
        }
        var out: [Int: Reuse] = [:]
        for members in groups.values where members.count > 1 {
            // The first member of each distinct account, in listing order.
            var seen = Set<AccountKey>()
            let distinct = members.filter { seen.insert(AccountKey(subjects[$0].entry)).inserted }
            guard distinct.count > 1 else { continue }
            let head = distinct.prefix(4).map { ($0, AccountKey(subjects[$0].entry)) }
            for i in members {
                let me = AccountKey(subjects[i].entry)
                let first = head.filter { $0.1 != me }.prefix(3).map(\.0)
                out[i] = Reuse(shown: Array(first), count: distinct.count - 1)
            }
        }
        return out
    }

    /// An account's identity across the two stores.
    private struct AccountKey: Hashable {
        var server: ServerName
        var account: String
        init(_ entry: CredentialEntry) {
            server = entry.server
            account = entry.account
        }
    }

    private static func formatted(_ bits: Double) -> String {
        String(format: "%.1f", bits)
    }
}
