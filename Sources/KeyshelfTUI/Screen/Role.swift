/// What a piece of text is for; a theme gives each role its colours and attributes.
///
/// Views never name colours: they draw with a role, and the `Screen` maps it
/// through the active `Theme` (themes/README.md lists the roles by these names).
public enum Role: String, CaseIterable, Sendable {
    /// Ordinary text.
    case normal
    /// The title bar at the top.
    case title
    /// Pane and dialog borders.
    case border
    /// The selected row of the focused list.
    case selection
    /// The selected row of the list that does not have focus.
    case selectionInactive = "selection-inactive"
    /// Secondary text: counts, dates, hints.
    case dim
    /// The badge of local-store items.
    case badgeLocal = "badge-local"
    /// The badge of shared-credential items.
    case badgeShared = "badge-shared"
    /// The status line at the bottom.
    case status
    /// Error messages (status line, inline form errors).
    case error
    /// Dialog body.
    case dialog
    /// A dialog button without focus.
    case button
    /// The dialog button that has focus.
    case buttonFocused = "button-focused"
    /// The destructive button (Delete, Update) without focus.
    case buttonDanger = "button-danger"
    /// Text fields being edited.
    case input
    /// Search matches and key names in help.
    case accent
}
