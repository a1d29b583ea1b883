//! `search_files`: the files and directories under a directory whose names contain a text,
//! leaving out those that match any of the patterns to exclude. A search over a large tree
//! reports the directories searched as progress, and stops when the call is cancelled: every
//! directory and entry is read with an `.await`, where the toolkit drops a cancelled call.

use std::path::PathBuf;

use toolkit::{Context, Run, Tool, ToolError};

use super::refused;
use crate::sandbox::Sandbox;

/// What `search_files` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Found {
    /// The paths found, relative to the served directory, in sorted order.
    paths: Vec<String>,
    /// Whether more were found than `maxResults`, and left out.
    truncated: bool,
}

/// Searches a directory and everything under it for files and directories whose names contain
/// `query`, ignoring case. Links are not followed.
#[derive(Tool)]
#[tool(name = "search_files", title = "Search files", output = Found,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct SearchFiles {
    /// Where to search, relative to the served directory.
    #[arg(min_chars = 1, default = ".")]
    path: String,
    /// Part of the name to look for.
    #[arg(min_chars = 1, max_chars = 200)]
    query: String,
    /// Leave out what these match, with `*` for any characters and `?` for one: a name
    /// (`*.log`) or a path from the searched directory (`target/*`). Nothing under a left-out
    /// directory is searched.
    #[arg(max_items = 20, each(min_chars = 1, max_chars = 200))]
    exclude_patterns: Option<Vec<String>>,
    /// Only files with this extension (without the dot).
    #[arg(pattern = "^[A-Za-z0-9]{1,10}$")]
    extension: Option<String>,
    /// Only files larger than this many KiB.
    #[arg(min = 0.0)]
    larger_than_kib: Option<f64>,
    /// At most this many paths.
    #[arg(min = 1, max = 1000, default = 100)]
    max_results: u32,
}

impl Run<Sandbox> for SearchFiles {
    async fn run(self, sandbox: &Sandbox, context: &Context) -> Result<Found, ToolError> {
        let start = sandbox
            .existing(&self.path)
            .map_err(|refusal| refused::<Self>("path", refusal))?;
        let query = self.query.to_lowercase();
        let excluded = self.exclude_patterns.unwrap_or_default();
        let mut found = Vec::new();
        let mut pending: Vec<PathBuf> = vec![start.clone()];
        let mut searched: u64 = 0;
        while let Some(directory) = pending.pop() {
            // How many directories there are is known only at the end.
            let message = format!("Searched {searched} directories, found {}.", found.len());
            context.progress(searched, None, message).await;
            searched += 1;
            let Ok(mut reading) = tokio::fs::read_dir(&directory).await else {
                continue;
            };
            while let Some(entry) = reading.next_entry().await? {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let from_start = path.strip_prefix(&start).unwrap_or(&path).to_string_lossy();
                if excluded
                    .iter()
                    .any(|pattern| glob(pattern, &name) || glob(pattern, &from_start))
                {
                    continue;
                }
                let kind = entry.file_type().await?;
                if kind.is_dir() {
                    pending.push(path.clone());
                }
                if !name.to_lowercase().contains(&query) {
                    continue;
                }
                let is_file = kind.is_file();
                if let Some(extension) = &self.extension {
                    let matches = path.extension().is_some_and(|found| {
                        found.to_string_lossy().eq_ignore_ascii_case(extension)
                    });
                    if !is_file || !matches {
                        continue;
                    }
                }
                if let Some(kib) = self.larger_than_kib {
                    let size = entry.metadata().await?.len();
                    if !is_file || size as f64 <= kib * 1024.0 {
                        continue;
                    }
                }
                found.push(sandbox.relative(&path));
            }
        }
        let message = format!("Searched {searched} directories, found {}.", found.len());
        context.progress(searched, Some(searched), message).await;
        found.sort();
        let limit = self.max_results as usize;
        let truncated = found.len() > limit;
        found.truncate(limit);
        Ok(Found {
            paths: found,
            truncated,
        })
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any characters and `?` for one.
fn glob(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), text.chars().collect());
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and how much of the text it has taken: on a mismatch, it takes
    // one more character and matching resumes after it.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_at, taken)) => {
                    p = star_at + 1;
                    t = taken + 1;
                    star = Some((star_at, taken + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs_match_stars_and_question_marks() {
        assert!(glob("*.log", "app.log"));
        assert!(!glob("*.log", "app.log.1"));
        assert!(glob("target/*", "target/debug/x"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "ac"));
        assert!(glob("*", ""));
    }
}
