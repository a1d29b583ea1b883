//! The database file itself, as opposed to what SQLite reads from it: noticing that the path no
//! longer names the file the store opened (deleted, or replaced with `mv`).

use std::path::Path;
use std::sync::Arc;

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

/// Fails when `path` no longer names `opened`, the file the store opened (when the platform can
/// tell): SQLite keeps writing to the file it has open, deleted or not, and a write there
/// would be lost.
pub(super) fn check(path: &Arc<Path>, opened: Option<FileId>) -> Result<(), FileChanged> {
    match opened {
        Some(opened) if FileId::of(path) != Some(opened) => Err(FileChanged(Arc::clone(path))),
        _ => Ok(()),
    }
}

/// A write refused because the database's path no longer names the file the store opened: it
/// was deleted, or another file was moved in its place. The write would go to a file no one
/// will open again.
#[derive(Debug, Clone)]
pub(super) struct FileChanged(pub(super) Arc<Path>);

impl std::fmt::Display for FileChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the database file {} was deleted or replaced while the server was running; \
             writes are refused, since they would go to a file no one will open again: \
             restart the server to use the file now at that path",
            self.0.display()
        )
    }
}

impl std::error::Error for FileChanged {}
