//! The database file itself, as opposed to what SQLite reads from it: noticing that the path no
//! longer names the file the store opened (deleted, or replaced with `mv`), and telling a file
//! SQLite finds damaged from other failures.

use std::path::Path;

/// Which file a path named: its device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    /// The file `path` names now; `None` when it names none, or where the platform cannot tell
    /// one file from another.
    pub(super) fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let metadata = std::fs::metadata(path).ok()?;
            Some(FileId {
                device: metadata.dev(),
                inode: metadata.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

/// SQLite's primary result codes for a damaged file (`SQLITE_CORRUPT`) and for one that is not
/// a database at all (`SQLITE_NOTADB`).
const DAMAGED: [i32; 2] = [11, 26];

/// Whether `error`, or an error it was caused by, is SQLite finding the file damaged or not a
/// database.
pub(super) fn is_damaged(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        let code = if let Some(error) = error.downcast_ref::<sqlx::Error>() {
            error
                .as_database_error()
                .and_then(|error| error.code())
                .and_then(|code| code.parse::<i32>().ok())
        } else if let Some(error) = error.downcast_ref::<rusqlite::Error>() {
            error.sqlite_error().map(|error| error.extended_code)
        } else {
            None
        };
        // Extended codes keep the primary code in their low byte.
        if code.is_some_and(|code| DAMAGED.contains(&(code & 0xff))) {
            return true;
        }
        next = error.source();
    }
    false
}
