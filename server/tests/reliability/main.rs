//! The server under conditions the tools alone cannot bring about, each checked against the
//! built binary on a real database file: a full disk, a client that floods stdin and reads
//! nothing, malformed JSON-RPC envelopes, the database file deleted, replaced or damaged, and
//! stored values the tools' contract cannot hold.

mod database_file;
mod flood;
mod full_disk;
mod protocol;
mod stored_values;
