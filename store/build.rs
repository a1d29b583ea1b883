//! Rebuilds the store when a migration is added: `sqlx::migrate!` embeds each backend's
//! migrations folder, and without this an incremental build would silently leave a new file out.

fn main() {
    println!("cargo:rerun-if-changed=../migrations/sqlite");
    println!("cargo:rerun-if-changed=../migrations/postgres");
}
