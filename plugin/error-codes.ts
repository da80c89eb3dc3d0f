// Generated from crates/core/src/error.rs by its test `the_plugin_has_the_codes_of_core`
// (VAULTLINK_UPDATE_SNAPSHOTS=1 cargo test -p vaultlink-core rewrites it). Do not edit.

/** Every error code a call can end with, as core defines them. */
export const ErrorCode = {
	InvalidArguments: "invalid_arguments",
	InvalidPath: "invalid_path",
	InvalidName: "invalid_name",
	NoteNotFound: "note_not_found",
	DestinationExists: "destination_exists",
	UnrepresentableLink: "unrepresentable_link",
	BreaksLinks: "breaks_links",
	PlanHashMismatch: "plan_hash_mismatch",
	AlreadyApplied: "already_applied",
	ConcurrentModification: "concurrent_modification",
	WriteFailed: "write_failed",
	InterruptedChange: "interrupted_change",
	ChangeInProgress: "change_in_progress",
	RecoveryFailed: "recovery_failed",
	PageRefused: "page_refused",
	DuplicatePage: "duplicate_page",
	ReadOnlySource: "read_only_source",
	NothingToUndo: "nothing_to_undo",
	UndoRefused: "undo_refused",
	HasBacklinks: "has_backlinks",
	UnwritableNote: "unwritable_note",
	TooLarge: "too_large",
	VaultUnreadable: "vault_unreadable",
	PluginUnavailable: "plugin_unavailable",
	UnknownTool: "unknown_tool",
	Cancelled: "cancelled",
	Internal: "internal",
	ConventionBlocked: "convention_blocked",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
