//! The file tools, one module each, and what they share: the toolbox, and how a path the
//! sandbox refuses becomes the broken rule a model reads.

mod create_directory;
mod edit_file;
mod get_file_info;
mod list_allowed_directories;
mod list_directory;
mod move_file;
mod read_multiple_files;
mod read_text_file;
mod search_files;
mod write_file;

pub use create_directory::CreateDirectory;
pub use edit_file::EditFile;
pub use get_file_info::GetFileInfo;
pub use list_allowed_directories::ListAllowedDirectories;
pub use list_directory::ListDirectory;
pub use move_file::MoveFile;
pub use read_multiple_files::ReadMultipleFiles;
pub use read_text_file::ReadTextFile;
pub use search_files::SearchFiles;
pub use write_file::WriteFile;

use toolkit::{Tool, ToolError, Toolbox};

use crate::sandbox::{Refusal, Sandbox};

/// Every file tool.
pub fn toolbox() -> Toolbox<Sandbox> {
    Toolbox::new()
        .tool::<ReadTextFile>()
        .tool::<ReadMultipleFiles>()
        .tool::<WriteFile>()
        .tool::<EditFile>()
        .tool::<CreateDirectory>()
        .tool::<ListDirectory>()
        .tool::<SearchFiles>()
        .tool::<GetFileInfo>()
        .tool::<MoveFile>()
        .tool::<ListAllowedDirectories>()
}

/// The text of the existing file at `path`, the argument `field` of tool `T`, with where it
/// is; a path refused, a file that cannot be read or is not UTF-8 is a broken rule of `field`.
async fn read_text<T: Tool>(
    sandbox: &Sandbox,
    field: &str,
    path: &str,
) -> Result<(std::path::PathBuf, String), ToolError> {
    let path = sandbox
        .existing(path)
        .map_err(|refusal| refused::<T>(field, refusal))?;
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|error| refused::<T>(field, error.into()))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((path, text)),
        Err(_) => Err(ToolError::invalid::<T>(field, "Is not a UTF-8 text file.")),
    }
}

/// A path argument of tool `T` (the Rust field `field`) that the sandbox refused, as a broken
/// rule of that argument: `Path: Leads outside the served directory: give a path inside it.`
fn refused<T: Tool>(field: &str, refusal: Refusal) -> ToolError {
    ToolError::invalid::<T>(field, refusal.sentence())
}
