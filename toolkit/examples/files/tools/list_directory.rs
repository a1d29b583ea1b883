//! `list_directory`: the entries of a directory, by name or by size.

use toolkit::{Choice, Context, Run, Tool, ToolError};

use super::refused;
use crate::sandbox::Sandbox;

/// What `list_directory` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Listing {
    /// The entries, in the order asked for.
    entries: Vec<Entry>,
}

/// One entry of a directory.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Entry {
    /// Its name.
    name: String,
    /// What it is.
    kind: Kind,
    /// Its size in bytes, for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
}

/// What an entry is.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    File,
    Directory,
    /// A symbolic link (not followed).
    Link,
}

/// How to order a listing.
#[derive(Choice, Clone, Copy)]
pub enum SortBy {
    /// By name, A to Z.
    Name,
    /// By size, largest first; directories last.
    Size,
}

/// Lists a directory's entries, with each file's size.
#[derive(Tool)]
#[tool(name = "list_directory", title = "List directory", output = Listing,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct ListDirectory {
    /// The directory, relative to the served directory.
    #[arg(min_chars = 1, default = ".")]
    path: String,
    /// The order of the entries.
    #[arg(default = "name")]
    sort_by: SortBy,
}

impl Run<Sandbox> for ListDirectory {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Listing, ToolError> {
        let path = sandbox
            .existing(&self.path)
            .map_err(|refusal| refused::<Self>("path", refusal))?;
        let mut reading = tokio::fs::read_dir(&path)
            .await
            .map_err(|error| refused::<Self>("path", error.into()))?;
        let mut entries = Vec::new();
        while let Some(entry) = reading.next_entry().await? {
            let kind = entry.file_type().await?;
            let (kind, size) = if kind.is_symlink() {
                (Kind::Link, None)
            } else if kind.is_dir() {
                (Kind::Directory, None)
            } else {
                (Kind::File, Some(entry.metadata().await?.len()))
            };
            entries.push(Entry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind,
                size,
            });
        }
        match self.sort_by {
            SortBy::Name => entries.sort_by(|a, b| a.name.cmp(&b.name)),
            SortBy::Size => entries.sort_by(|a, b| b.size.cmp(&a.size).then(a.name.cmp(&b.name))),
        }
        Ok(Listing { entries })
    }
}
