//! The store's writing connection: one SQLite connection, owned by a thread of its own, that
//! makes every write of this process, committing together the writes that queue up meanwhile
//! (group commit).
//!
//! A write is a closure run on that connection. The thread takes every write waiting, runs
//! them in one transaction, each inside a savepoint of its own, and commits once: one fsync
//! (`synchronous = FULL`) for the lot, where each write alone would wait for its own. A write
//! that fails is rolled back to its savepoint and fails alone; its neighbours commit. Each is
//! answered only after the commit that holds it is durable, or with the commit's error, so
//! nothing is acknowledged that could still be lost. While one transaction commits, the next
//! writes queue up, so the busier the server, the more each fsync carries. A write whose caller
//! has stopped waiting (a cancelled call) by the time it has run is rolled back to its
//! savepoint, or never run; once its transaction is committing, it stands.
//!
//! sqlx would hand every statement to a connection thread and its answer back through channels;
//! here a write crosses threads once each way.

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::oneshot;

use super::file::{self, FileChanged, FileId};
use super::{BUSY_TIMEOUT, StoreError, keep_prepared, run_statement};

/// Writes committed together at most, so that one transaction never grows without bound
/// while writes keep arriving.
const MAX_BATCH: usize = 256;

/// Statements the writing connection keeps prepared: the few writes the store makes, and the
/// transaction's own.
const PREPARED_STATEMENTS: usize = 32;

/// The writing thread, and the way to send it work.
pub(super) struct Writer {
    queue: mpsc::Sender<Message>,
    state: Arc<AtomicU8>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

// What the writing connection is doing, for the metrics: not open, open and waiting, writing.
const CLOSED: u8 = 0;
const IDLE: u8 = 1;
const WRITING: u8 = 2;

enum Message {
    Write(Write),
    /// Wait, writing nothing, until the receiver's sender is dropped: someone else writes
    /// meanwhile (a load, through a connection of its own). The first sender says the wait
    /// has begun.
    Pause(oneshot::Sender<()>, oneshot::Receiver<()>),
    /// From now on, refuse every write (`query_only`).
    RefuseWrites(oneshot::Sender<Result<(), StoreError>>),
    /// Close the connection, which checkpoints the write-ahead log, and end the thread.
    Close,
}

/// One write, waiting for its turn, then for its transaction's commit.
type Write = Box<dyn Job>;

trait Job: Send {
    /// Runs the write on the connection, inside its savepoint; false if it failed, or if its
    /// caller stopped waiting, so that the savepoint is rolled back.
    fn run(&mut self, connection: &Connection) -> bool;
    /// Answers the caller once the transaction is over, as it `ended`.
    fn answer(self: Box<Self>, ended: &Ended<'_>);
}

/// How the transaction a write was queued for ended.
enum Ended<'a> {
    /// Committed: durable.
    Committed,
    /// Failed, or never began, with this error: nothing in it was saved.
    Failed(&'a rusqlite::Error),
    /// Never began, because the database's path names another file now.
    FileChanged(&'a FileChanged),
    /// Never began, because the store was closing.
    Closed,
}

/// A write of a value of type `T`, as [`Writer::write`] queues it.
struct Pending<T, F> {
    write: Option<F>,
    outcome: Option<rusqlite::Result<T>>,
    caller: oneshot::Sender<Result<T, StoreError>>,
}

impl<T, F> Job for Pending<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> rusqlite::Result<T> + Send,
{
    fn run(&mut self, connection: &Connection) -> bool {
        let Some(write) = self.write.take() else {
            return false;
        };
        // The caller stopped waiting before the write's turn came (its call was cancelled):
        // nothing is written, as if the write had never been asked for.
        if self.caller.is_closed() {
            return false;
        }
        // A write that panics fails alone, like any failed write: its savepoint is rolled back
        // and the thread goes on writing for everyone else.
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| write(connection)))
            .unwrap_or_else(|_| {
                Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
                    Some("a write to the database panicked".to_owned()),
                ))
            });
        // The caller stopped waiting while the write ran: its savepoint is rolled back, so a
        // cancelled call leaves nothing behind.
        if self.caller.is_closed() {
            return false;
        }
        let succeeded = outcome.is_ok();
        self.outcome = Some(outcome);
        succeeded
    }

    fn answer(self: Box<Self>, ended: &Ended<'_>) {
        let answer = match (self.outcome, ended) {
            // A write's own failure is its answer, whatever became of the transaction.
            (Some(Err(own)), _) => Err(StoreError::from(own)),
            (Some(Ok(value)), Ended::Committed) => Ok(value),
            (None, Ended::Committed) => Err(StoreError::failed("the write was never run")),
            (_, Ended::Failed(error)) => Err(StoreError::from(copy_error(error))),
            (_, Ended::FileChanged(changed)) => {
                Err(StoreError::Failed(Box::new(FileChanged::clone(changed))))
            }
            (_, Ended::Closed) => Err(StoreError::Closed),
        };
        // The caller may have stopped waiting since the write ran (a call cancelled while its
        // transaction committed): the write stands all the same.
        let _ = self.caller.send(answer);
    }
}

/// Given back when a load has taken its turn among the writes; the writes go on when it is
/// dropped.
pub(super) struct Turn {
    _resume: oneshot::Sender<()>,
}

impl Writer {
    /// Starts the writing thread for the database at `path`, which exists and is migrated. The
    /// connection is opened on the first write.
    /// `file` is the file `path` named when the store opened it: writes are refused once the
    /// path names another or none.
    pub(super) fn start(path: &Path, file: Option<FileId>) -> Result<Writer, StoreError> {
        let (queue, messages) = mpsc::channel();
        let state = Arc::new(AtomicU8::new(CLOSED));
        let mut thread = WriterThread {
            path: Arc::from(path),
            file,
            connection: None,
            refuse_writes: false,
            state: Arc::clone(&state),
        };
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".to_owned())
            .spawn(move || thread.run(&messages))
            .map_err(|error| {
                StoreError::failed(format!(
                    "cannot start the database's writing thread: {error}"
                ))
            })?;
        Ok(Writer {
            queue,
            state,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Runs `write` on the writing connection, in the next transaction, and gives its value once
    /// that transaction is committed. `write` must step each statement to its end: a statement
    /// left unfinished keeps the transaction from committing.
    pub(super) async fn write<T: Send + 'static>(
        &self,
        write: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (caller, answered) = oneshot::channel();
        let write = Box::new(Pending {
            write: Some(write),
            outcome: None,
            caller,
        });
        self.send(Message::Write(write))?;
        answered.await.map_err(|_| stopped())?
    }

    /// Waits for the writes queued before, then holds the writes back until the [`Turn`] is
    /// dropped: for a load, which writes through a connection of its own.
    pub(super) async fn take_turn(&self) -> Result<Turn, StoreError> {
        let (paused, pausing) = oneshot::channel();
        let (resume, waiting) = oneshot::channel();
        self.send(Message::Pause(paused, waiting))?;
        pausing.await.map_err(|_| stopped())?;
        Ok(Turn { _resume: resume })
    }

    /// From now on every write is refused (`query_only`), once the writes queued before are
    /// done.
    pub(super) async fn refuse_writes(&self) -> Result<(), StoreError> {
        let (done, answered) = oneshot::channel();
        self.send(Message::RefuseWrites(done))?;
        answered.await.map_err(|_| stopped())?
    }

    /// Whether the connection is writing (1, 0) or open and waiting (0, 1); (0, 0) when not
    /// open.
    pub(super) fn in_use_and_idle(&self) -> (usize, usize) {
        match self.state.load(Ordering::Relaxed) {
            WRITING => (1, 0),
            IDLE => (0, 1),
            _ => (0, 0),
        }
    }

    /// Waits for the writes queued, then closes the connection (checkpointing the write-ahead
    /// log when it is the last one open) and ends the thread. Later writes fail with
    /// [`StoreError::Closed`].
    pub(super) async fn close(&self) {
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(thread) = thread else { return };
        if self.queue.send(Message::Close).is_err() {
            return;
        }
        // Joining blocks until the queued writes are done: on a blocking thread, not the
        // runtime's.
        let joined = tokio::task::spawn_blocking(move || thread.join()).await;
        if !matches!(joined, Ok(Ok(()))) {
            tracing::warn!("the database's writing thread did not end cleanly");
        }
    }

    fn send(&self, message: Message) -> Result<(), StoreError> {
        self.queue.send(message).map_err(|_| StoreError::Closed)
    }
}

/// The error when the writing thread is gone without answering.
fn stopped() -> StoreError {
    StoreError::failed("the database's writing thread stopped")
}

/// A copy of a commit's error, for each write the commit held. SQLite's own errors are copied
/// exactly; any other becomes a generic SQLite error with the same text.
fn copy_error(error: &rusqlite::Error) -> rusqlite::Error {
    match error {
        rusqlite::Error::SqliteFailure(code, message) => {
            rusqlite::Error::SqliteFailure(*code, message.clone())
        }
        other => rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
            Some(other.to_string()),
        ),
    }
}

/// What the writing thread owns.
struct WriterThread {
    path: Arc<Path>,
    file: Option<FileId>,
    /// Opened on the first write; closed after a transaction fails, so that the next starts on
    /// a fresh connection rather than on one whose state after the failure no one has checked.
    connection: Option<Connection>,
    refuse_writes: bool,
    state: Arc<AtomicU8>,
}

impl WriterThread {
    fn run(&mut self, messages: &mpsc::Receiver<Message>) {
        let mut next = None;
        loop {
            let message = match next.take() {
                Some(message) => message,
                None => match messages.recv() {
                    Ok(message) => message,
                    // Every sender is gone: the store was dropped without `close`.
                    Err(_) => break,
                },
            };
            match message {
                Message::Write(write) => {
                    let mut batch = vec![write];
                    while batch.len() < MAX_BATCH {
                        match messages.try_recv() {
                            Ok(Message::Write(write)) => batch.push(write),
                            Ok(other) => {
                                next = Some(other);
                                break;
                            }
                            Err(_) => break,
                        }
                    }
                    self.state.store(WRITING, Ordering::Relaxed);
                    self.commit(batch);
                    self.set_idle();
                }
                Message::Pause(paused, resume) => {
                    self.state.store(WRITING, Ordering::Relaxed);
                    if paused.send(()).is_ok() {
                        // Ends when the turn is given back (its sender dropped).
                        let _ = resume.blocking_recv();
                    }
                    self.set_idle();
                }
                Message::RefuseWrites(done) => {
                    self.refuse_writes = true;
                    let refused = match &self.connection {
                        Some(connection) => connection
                            .pragma_update(None, "query_only", true)
                            .map_err(StoreError::from),
                        None => Ok(()),
                    };
                    let _ = done.send(refused);
                }
                Message::Close => {
                    // Writes sent after `close` began are refused as the store's later calls
                    // are.
                    for message in messages.try_iter() {
                        if let Message::Write(write) = message {
                            write.answer(&Ended::Closed);
                        }
                    }
                    break;
                }
            }
        }
        self.close_connection();
    }

    fn set_idle(&self) {
        let state = if self.connection.is_some() {
            IDLE
        } else {
            CLOSED
        };
        self.state.store(state, Ordering::Relaxed);
    }

    /// Runs `batch` in one transaction, each write in a savepoint, commits, and answers each.
    fn commit(&mut self, mut batch: Vec<Write>) {
        // Checked here, just before the transaction, and not when the writes were queued: they
        // may have waited behind a load or another process's lock while the file was replaced.
        if let Err(changed) = file::check(&self.path, self.file) {
            return answer_all(batch, &Ended::FileChanged(&changed));
        }
        let connection = match self.connection() {
            Ok(connection) => connection,
            Err(error) => return answer_all(batch, &Ended::Failed(&error)),
        };
        if let Err(error) = run_statement(connection, "BEGIN IMMEDIATE") {
            return answer_all(batch, &Ended::Failed(&error));
        }
        let mut failed = None;
        for write in &mut batch {
            if let Err(error) = run_in_savepoint(connection, write.as_mut()) {
                failed = Some(error);
                break;
            }
        }
        let committed = match failed {
            Some(error) => Err(error),
            None => run_statement(connection, "COMMIT"),
        };
        if let Err(error) = &committed {
            tracing::warn!(%error, "a write transaction failed; none of its writes was saved");
            if !connection.is_autocommit() {
                let _ = connection.execute_batch("ROLLBACK");
            }
            self.close_connection();
        }
        let ended = match &committed {
            Ok(()) => Ended::Committed,
            Err(error) => Ended::Failed(error),
        };
        answer_all(batch, &ended);
    }

    /// The open connection, or a new one.
    fn connection(&mut self) -> Result<&Connection, rusqlite::Error> {
        match &mut self.connection {
            Some(connection) => Ok(connection),
            empty => Ok(empty.insert(open(&self.path, self.refuse_writes)?)),
        }
    }

    fn close_connection(&mut self) {
        if let Some(connection) = self.connection.take()
            && let Err((_, error)) = connection.close()
        {
            tracing::warn!(%error, "closing the database's writing connection failed");
        }
        self.state.store(CLOSED, Ordering::Relaxed);
    }
}

/// Runs `write` inside a savepoint of its own, rolled back if the write fails. An error here
/// is the transaction's: some failures (a full disk, an I/O error) roll back the whole
/// transaction, and with it the writes before this one.
fn run_in_savepoint(connection: &Connection, write: &mut dyn Job) -> rusqlite::Result<()> {
    run_statement(connection, "SAVEPOINT write")?;
    if write.run(connection) {
        run_statement(connection, "RELEASE write")?;
    } else {
        run_statement(connection, "ROLLBACK TO write")?;
        run_statement(connection, "RELEASE write")?;
    }
    if connection.is_autocommit() {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
            Some("the transaction was rolled back after a write failed".to_owned()),
        ));
    }
    Ok(())
}

/// Answers every write of `batch` as their transaction `ended`.
fn answer_all(batch: Vec<Write>, ended: &Ended<'_>) {
    for write in batch {
        write.answer(ended);
    }
}

/// Opens the writing connection with the settings every write relies on: WAL, so that readers
/// in this process and others work beside it; `synchronous = FULL`, so that a committed write
/// survives losing power; the busy timeout, so that a write waits for another process's lock;
/// and foreign keys.
fn open(path: &Path, refuse_writes: bool) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", true)?;
    if refuse_writes {
        connection.pragma_update(None, "query_only", true)?;
    }
    keep_prepared(&connection, PREPARED_STATEMENTS)?;
    Ok(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer on a new database with one table.
    fn writer(dir: &tempfile::TempDir) -> Writer {
        let path = dir.path().join("writer.db");
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch("CREATE TABLE t (x INTEGER)")
            .unwrap();
        drop(connection);
        Writer::start(&path, FileId::of(&path)).unwrap()
    }

    /// The writing connection plans each statement once, whatever is bound to it (see
    /// `keep_prepared`).
    #[test]
    fn the_writing_connection_plans_each_statement_once() {
        let dir = tempfile::tempdir().unwrap();
        drop(writer(&dir));
        let connection = open(&dir.path().join("writer.db"), false).unwrap();
        let planned_once =
            connection.db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG);
        assert!(planned_once.unwrap());
    }

    fn insert(x: i64) -> impl FnOnce(&Connection) -> rusqlite::Result<usize> + Send + 'static {
        move |connection| connection.execute("INSERT INTO t (x) VALUES (?1)", [x])
    }

    #[tokio::test]
    async fn a_write_that_panics_fails_alone_and_writing_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let writer = writer(&dir);
        let (panicked, saved) = tokio::join!(
            writer.write(|_: &Connection| -> rusqlite::Result<()> { panic!("a bug") }),
            writer.write(insert(1)),
        );
        assert!(panicked.is_err());
        assert_eq!(saved.unwrap(), 1);
        assert_eq!(writer.write(insert(2)).await.unwrap(), 1);
        let count = writer
            .write(|connection| {
                connection.query_row("SELECT COUNT(*) FROM t", [], |row| row.get::<_, i64>(0))
            })
            .await
            .unwrap();
        assert_eq!(count, 2);
        writer.close().await;
        assert!(matches!(
            writer.write(insert(3)).await,
            Err(StoreError::Closed)
        ));
    }

    /// Writes queued while the writer is busy commit in one transaction. A deferred foreign key
    /// shows it: a child inserted before its parent can commit only in the transaction that
    /// also inserts the parent.
    #[tokio::test]
    async fn writes_queued_meanwhile_share_one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("writer.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(
                "CREATE TABLE parent (id INTEGER PRIMARY KEY);
                 CREATE TABLE child (parent INTEGER REFERENCES parent (id)
                                     DEFERRABLE INITIALLY DEFERRED);",
            )
            .unwrap();
        let writer = Writer::start(&path, FileId::of(&path)).unwrap();
        let insert = |sql: &'static str| move |connection: &Connection| connection.execute(sql, []);
        // While a turn is held, nothing is written: both writes wait, then go as one batch.
        let turn = writer.take_turn().await.unwrap();
        let (child, parent, ()) = tokio::join!(
            writer.write(insert("INSERT INTO child (parent) VALUES (1)")),
            writer.write(insert("INSERT INTO parent (id) VALUES (1)")),
            async {
                tokio::task::yield_now().await;
                drop(turn);
            },
        );
        assert_eq!((child.unwrap(), parent.unwrap()), (1, 1));
        // Alone, the same child cannot commit.
        let orphan = writer
            .write(insert("INSERT INTO child (parent) VALUES (2)"))
            .await;
        assert!(orphan.is_err());
        writer.close().await;
    }

    #[tokio::test]
    async fn writes_are_refused_once_the_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let writer = writer(&dir);
        assert!(writer.write(insert(1)).await.is_ok());
        let path = dir.path().join("writer.db");
        std::fs::rename(&path, dir.path().join("moved.db")).unwrap();
        std::fs::write(&path, b"").unwrap();
        let refused = writer.write(insert(2)).await.unwrap_err();
        assert!(
            refused.to_string().contains("deleted or replaced"),
            "{refused}"
        );
        writer.close().await;
    }
}
