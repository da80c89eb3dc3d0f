//! The limits on a name that every writer keeps: a path's segment as filesystems allow it, and a
//! file's name with room for the engine's temporary names beside it. Its own module, so that the
//! planners and the batch that carries their plans out read them without importing each other.

/// The most bytes of one segment of a path, as filesystems allow (ext4, APFS, NTFS in UTF-16).
pub const MAX_NAME_BYTES: usize = 255;
/// The most bytes of a file's name that a move or a new page may give: the engine's temporary
/// names beside the file (`batch::temporary_name`) add up to `batch::TEMPORARY_NAME_EXTRA_BYTES`
/// to it and must fit `MAX_NAME_BYTES` too, or the file's first rewrite would fail at write time.
pub const MAX_FILE_NAME_BYTES: usize = MAX_NAME_BYTES - TEMPORARY_NAME_EXTRA_BYTES;
/// The most bytes the engine's temporary names add to a file's name: `.` before it and
/// `.vaultlink-<tag>.aside` after it (`batch::temporary_name`, the longest kind, with a tag of ten
/// digits, the most a `u32` has); `batch::swap_name` adds less. A file's new name leaves room for
/// them ([`MAX_FILE_NAME_BYTES`]), so the temporary files of a later rewrite fit the
/// filesystem's limit on a name too.
pub const TEMPORARY_NAME_EXTRA_BYTES: usize = ".".len() + ".vaultlink-".len() + 10 + ".aside".len();
