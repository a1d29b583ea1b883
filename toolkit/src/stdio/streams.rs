//! stdin and stdout as the server reads and writes them: polled like sockets when they are pipes
//! or sockets, as when an MCP client starts the server.

use tokio::io::{AsyncRead, AsyncWrite};

/// What the server reads requests from.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;

/// What the server writes answers to.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// This process's stdin and stdout, for serving.
///
/// When they are pipes or sockets, as when an MCP client starts the server, they are made
/// non-blocking and polled by the runtime like any socket. Tokio's own stdin and stdout hand
/// every read and every write to a thread of its blocking pool and wait for it; measured here,
/// those hand-offs were a large part of a call's round trip. A terminal or a file (which cannot
/// be polled, and a terminal's mode is shared with the shell) keeps tokio's.
///
/// Call it once, from within the runtime.
pub fn standard_streams() -> (Input, Output) {
    #[cfg(unix)]
    {
        (
            polled::stdin().unwrap_or_else(|| Box::new(tokio::io::stdin())),
            polled::stdout().unwrap_or_else(|| Box::new(tokio::io::stdout())),
        )
    }
    #[cfg(not(unix))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

#[cfg(unix)]
mod polled {
    //! stdin and stdout as non-blocking pipes or sockets, when they are one.

    use std::fs::File;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;

    use tokio::net::UnixStream;
    use tokio::net::unix::pipe;

    use super::{Input, Output};

    pub(super) fn stdin() -> Option<Input> {
        let (fd, is_pipe) = stream_fd(std::io::stdin().as_fd())?;
        Some(if is_pipe {
            Box::new(pipe::Receiver::from_owned_fd(fd).ok()?)
        } else {
            Box::new(socket(fd)?)
        })
    }

    pub(super) fn stdout() -> Option<Output> {
        let (fd, is_pipe) = stream_fd(std::io::stdout().as_fd())?;
        Some(if is_pipe {
            Box::new(pipe::Sender::from_owned_fd(fd).ok()?)
        } else {
            Box::new(socket(fd)?)
        })
    }

    /// A duplicate of `fd` when it is a pipe (true) or a socket (false); it shares the original's
    /// open file, so both become non-blocking together.
    fn stream_fd(fd: BorrowedFd<'_>) -> Option<(OwnedFd, bool)> {
        let file = File::from(fd.try_clone_to_owned().ok()?);
        let kind = file.metadata().ok()?.file_type();
        let owned = OwnedFd::from(file);
        if kind.is_fifo() {
            Some((owned, true))
        } else if kind.is_socket() {
            Some((owned, false))
        } else {
            None
        }
    }

    fn socket(fd: OwnedFd) -> Option<UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(fd);
        socket.set_nonblocking(true).ok()?;
        UnixStream::from_std(socket).ok()
    }
}
