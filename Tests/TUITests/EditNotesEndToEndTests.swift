import Foundation
import KeyshelfTestSupport
import Testing

/// `keyshelf edit --edit-notes` in a terminal: the vault opened to read the
/// notes also takes the edit, so the master password is asked once, and the
/// notes the editor saved are the item's afterwards.
@Suite(.serialized) struct EditNotesEndToEndTests {
    @Test func theEditorsNotesAreSavedAfterOneMasterPasswordPrompt() throws {
        let tmux = try TmuxSession(samples: [("notes.example", "nina", .shared, "old notes")])
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)").path
        let editor = tmux.folder.appendingPathComponent("editor.sh")
        try "#!/bin/sh\nprintf 'new notes\\n' > \"$1\"\n".write(to: editor, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: editor.path)
        let vault = tmux.folder.appendingPathComponent("vault").path
        // No agent (a runtime directory of its own) and no password file: the prompt is the only way in.
        let env = "env TERM=xterm-256color LANG=C.UTF-8 XDG_RUNTIME_DIR=\(tmux.folder.path) XDG_CONFIG_HOME=\(tmux.folder.path)"
            + " TMPDIR=\(tmux.folder.path) EDITOR=\(editor.path)"
        try tmux.start(command: "\(env) \(binary) edit notes.example nina --edit-notes --vault \(vault); echo EXITED $?; sleep 30")
        try tmux.waitFor("Master password:")
        try tmux.type("e2e-master")
        try tmux.send("Enter")
        let screen = try tmux.waitFor("EXITED")
        #expect(screen.contains("EXITED 0"), "\(screen)")
        #expect(screen.components(separatedBy: "Master password:").count == 2, "asked once:\n\(screen)")
        #expect(screen.contains("changed"), "\(screen)")

        let shown = try TestProcess.run(["/bin/sh", "-c", "\(env) KEYSHELF_PASSWORD_FILE=\(tmux.folder.path)/password \(binary) get notes.example nina --json --yes --vault \(vault)"])
        let fields = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(fields?["notes"] as? String == "new notes", "\(shown.stdout)")
    }
}
