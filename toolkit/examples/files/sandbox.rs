//! The one place a path a client sends becomes a path on disk: relative to the served
//! directory (or absolute inside it), with `..` and symbolic links resolved, and refused when
//! it leads outside.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The served directory.
pub struct Sandbox {
    /// Canonical: absolute, with every link resolved.
    root: PathBuf,
}

/// Why a path cannot be used, as a sentence for the model.
#[derive(Debug)]
pub enum Refusal {
    /// It leads outside the served directory.
    Outside,
    /// Nothing exists at it.
    Missing,
    /// The directory it would be created in does not exist.
    NoParent,
    /// It names the served directory itself, where a new entry was needed.
    IsRoot,
    /// The filesystem refused (permissions, say).
    Io(io::Error),
}

impl Refusal {
    /// The sentence a model reads after the argument's name.
    pub fn sentence(&self) -> String {
        match self {
            Refusal::Outside => {
                "Leads outside the served directory: give a path inside it.".to_owned()
            }
            Refusal::Missing => "Nothing exists at this path.".to_owned(),
            Refusal::NoParent => "The directory this path is in does not exist.".to_owned(),
            Refusal::IsRoot => "Is the served directory itself: name an entry in it.".to_owned(),
            Refusal::Io(error) => format!("Cannot be used: {error}."),
        }
    }
}

impl From<io::Error> for Refusal {
    fn from(error: io::Error) -> Self {
        match error.kind() {
            io::ErrorKind::NotFound => Refusal::Missing,
            _ => Refusal::Io(error),
        }
    }
}

impl Sandbox {
    /// Serves `directory`, which must exist.
    pub fn new(directory: &Path) -> io::Result<Sandbox> {
        let root = directory.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a directory",
            ));
        }
        Ok(Sandbox { root })
    }

    /// The served directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// An existing path inside the served directory, canonical. A path that leads outside as
    /// written is refused before the disk is looked at, so that the answer tells nothing of
    /// what exists outside.
    pub fn existing(&self, path: &str) -> Result<PathBuf, Refusal> {
        self.inside(self.written(path))?;
        let resolved = self.root.join(path).canonicalize()?;
        self.inside(resolved)
    }

    /// `path` joined to the served directory, with `.` and `..` taken as written (the links on
    /// the way are for `canonicalize` to resolve).
    fn written(&self, path: &str) -> PathBuf {
        let mut written = PathBuf::new();
        for part in self.root.join(path).components() {
            match part {
                Component::ParentDir => {
                    written.pop();
                }
                Component::CurDir => {}
                other => written.push(other),
            }
        }
        written
    }

    /// A path inside the served directory that may not exist yet: its directory exists inside,
    /// and if the path itself exists (a link, say) it resolves inside too.
    pub fn new_entry(&self, path: &str) -> Result<PathBuf, Refusal> {
        // The last part as written: `Path::components` drops a `.` only at the end, so that
        // `sub/.` would otherwise read as `sub`'s parent and `sub`.
        let written = Path::new(path);
        let name = match written.components().next_back() {
            Some(Component::Normal(name)) if !path.ends_with("/.") => name.to_owned(),
            // `.`, `..`, `/`: a directory that exists, if anything.
            _ => {
                let existing = self.existing(path)?;
                return if existing == self.root {
                    Err(Refusal::IsRoot)
                } else {
                    Ok(existing)
                };
            }
        };
        let joined = self.root.join(written);
        let parent = joined.parent().ok_or(Refusal::IsRoot)?;
        let parent = match parent.canonicalize() {
            Ok(parent) => self.inside(parent)?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(Refusal::NoParent);
            }
            Err(error) => return Err(Refusal::Io(error)),
        };
        let entry = parent.join(name);
        if entry.symlink_metadata().is_ok() {
            // It exists: a link must not lead outside.
            return self.existing(&entry.to_string_lossy());
        }
        Ok(entry)
    }

    /// `path` as the client would name it: relative to the served directory.
    pub fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        if relative.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            relative.to_string_lossy().into_owned()
        }
    }

    fn inside(&self, resolved: PathBuf) -> Result<PathBuf, Refusal> {
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(Refusal::Outside)
        }
    }
}
