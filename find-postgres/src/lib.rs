//! Where this machine's PostgreSQL programs are ([`bin_dir`]), and whether the tests must have
//! them ([`required`]). The tests' throwaway cluster starts its server from [`bin_dir`]; the
//! build scripts of the packages with PostgreSQL tests ask both ([`configure_build`]), and where
//! PostgreSQL is missing and not required, those tests are marked ignored:
//!
//! ```text
//! #[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
//! ```
//!
//! so that a run without PostgreSQL says so in its summary instead of counting them as passed.

#![forbid(unsafe_code)]

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The cfg the build scripts set where PostgreSQL is missing and not required.
pub const MISSING_CFG: &str = "postgres_missing";

/// Tells Cargo, from a build script, to set [`MISSING_CFG`] where PostgreSQL is missing and not
/// required, and to run the script again when `PATH` or `CI` changes (which rebuilds the
/// package). A PostgreSQL installed later, with `PATH` and `CI` as they were, is noticed once
/// the build script is touched (`touch server/build.rs tests/build.rs`).
pub fn configure_build() {
    println!("cargo::rustc-check-cfg=cfg({MISSING_CFG})");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    if bin_dir().is_none() && !required() {
        println!("cargo::rustc-cfg={MISSING_CFG}");
    }
}

/// The folder PostgreSQL's programs are in: where `initdb` on PATH really is (Debian links
/// them into /usr/local/bin on some machines), else the newest `/usr/lib/postgresql/*/bin`
/// (Debian does not put them on PATH).
pub fn bin_dir() -> Option<PathBuf> {
    if let Some(initdb) = find_on_path("initdb") {
        let real = fs::canonicalize(&initdb).unwrap_or(initdb);
        return real.parent().map(Path::to_path_buf);
    }
    fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let bin = entry.path().join("bin");
            // Compared as numbers: version 10 is newer than 9.6.
            let version: Vec<u32> = entry
                .file_name()
                .to_str()?
                .split('.')
                .map(|part| part.parse().ok())
                .collect::<Option<_>>()?;
            is_executable(&bin.join("initdb")).then_some((version, bin))
        })
        .max()
        .map(|(_, bin)| bin)
}

/// The program `name` on `PATH`, if it is there and executable.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| is_executable(path))
}

/// Whether `path` is an executable file (on Unix, with an execute bit set; elsewhere, a file).
pub fn is_executable(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Whether the tests run under CI (`CI` set to `true` or `1`), where PostgreSQL must be
/// installed: a missing one fails the tests instead of skipping them.
pub fn required() -> bool {
    env::var("CI").is_ok_and(|value| {
        let value = value.trim();
        value == "1" || value.eq_ignore_ascii_case("true")
    })
}
