//! The connections open at once, and which one gives way when a new one would pass a cap. Only
//! an idle connection ever gives way: one with no request in flight, which covers a kept-alive
//! connection between requests and one that has not finished sending a request head; either
//! costs its client nothing to hold, so neither may keep a newcomer out. Past the cap on one
//! address, that address's connection idle longest gives way; past the cap on all, an idle one
//! of the address that holds the most connections, so that a client reconnecting as fast as
//! it can only ever displaces itself and the biggest holders, never a client with few.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::http::observer::HttpObserver;

/// The caps a new connection is admitted under.
#[derive(Debug, Clone, Copy)]
pub(super) struct Caps {
    pub(super) total: usize,
    pub(super) per_address: usize,
}

/// The open connections.
pub(super) struct Registry {
    open: Mutex<Open>,
    /// Told of each connection opened and closed.
    observer: Arc<dyn HttpObserver>,
}

#[derive(Default)]
struct Open {
    next_id: u64,
    connections: HashMap<u64, Entry>,
}

struct Entry {
    address: IpAddr,
    activity: Arc<Activity>,
    evict: CancellationToken,
}

/// What a connection is doing: how many requests are in flight on it, and since when it has
/// had none.
pub(super) struct Activity {
    requests: AtomicUsize,
    idle_since: Mutex<Instant>,
}

/// A connection admitted: it leaves the registry when this is dropped.
pub(super) struct Admitted {
    registry: Arc<Registry>,
    id: u64,
    pub(super) activity: Arc<Activity>,
    /// Cancelled when the connection must give way to a newer one.
    pub(super) evict: CancellationToken,
}

/// Marks a request in flight until dropped.
pub(super) struct InFlight(Arc<Activity>);

impl Registry {
    /// No connections yet; `observer` is told of each as it opens and closes.
    pub(super) fn new(observer: Arc<dyn HttpObserver>) -> Registry {
        Registry {
            open: Mutex::default(),
            observer,
        }
    }

    /// Admits a connection from `address` under `caps`, first closing the connection idle
    /// longest among those it would pass (that address's, or all); `None` when every one of
    /// those is busy, and the newcomer is to be turned away.
    pub(super) fn admit(self: &Arc<Self>, address: IpAddr, caps: Caps) -> Option<Admitted> {
        let address = address.to_canonical();
        let mut open = self.open();
        let from_address = open
            .connections
            .values()
            .filter(|entry| entry.address == address)
            .count();
        if from_address >= caps.per_address {
            open.evict_idlest(|entry| entry.address == address)?;
        } else if open.connections.len() >= caps.total {
            let holders = open.holders();
            let biggest = open
                .connections
                .values()
                .filter(|entry| !entry.activity.is_busy())
                .map(|entry| holders[&entry.address])
                .max()?;
            open.evict_idlest(|entry| holders[&entry.address] == biggest)?;
        }
        let id = open.next_id;
        open.next_id += 1;
        let activity = Arc::new(Activity {
            requests: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
        });
        let evict = CancellationToken::new();
        let entry = Entry {
            address,
            activity: Arc::clone(&activity),
            evict: evict.clone(),
        };
        open.connections.insert(id, entry);
        self.observer.connection_opened();
        Some(Admitted {
            registry: Arc::clone(self),
            id,
            activity,
            evict,
        })
    }

    /// How many connections are open.
    pub(super) fn len(&self) -> usize {
        self.open().connections.len()
    }

    // The lock is held only to count, insert, remove and pick, none of which can panic; a
    // poisoned lock would still hold a consistent map.
    fn open(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Open {
    /// How many connections each address holds.
    fn holders(&self) -> HashMap<IpAddr, usize> {
        let mut holders = HashMap::new();
        for entry in self.connections.values() {
            *holders.entry(entry.address).or_default() += 1;
        }
        holders
    }

    /// Takes out, and tells to close, the idle connection among `candidates` that has been idle
    /// longest; `None` when none of them is idle.
    fn evict_idlest(&mut self, candidates: impl Fn(&Entry) -> bool) -> Option<()> {
        let (&id, _) = self
            .connections
            .iter()
            .filter(|(_, entry)| candidates(entry))
            .filter_map(|entry| Some((entry.0, entry.1.activity.idle_since()?)))
            .min_by_key(|(_, idle_since)| *idle_since)?;
        let entry = self.connections.remove(&id)?;
        entry.evict.cancel();
        Some(())
    }
}

impl Activity {
    /// Marks a request in flight.
    pub(super) fn start(self: &Arc<Self>) -> InFlight {
        self.requests.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(self))
    }

    /// Whether a request is in flight.
    pub(super) fn is_busy(&self) -> bool {
        self.requests.load(Ordering::SeqCst) > 0
    }

    /// Since when the connection has had no request in flight; `None` while it has one.
    fn idle_since(&self) -> Option<Instant> {
        if self.is_busy() {
            return None;
        }
        Some(
            *self
                .idle_since
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut idle_since = self
            .0
            .idle_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.0.requests.fetch_sub(1, Ordering::SeqCst) == 1 {
            *idle_since = Instant::now();
        }
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        // An evicted connection was taken out already.
        self.registry.open().connections.remove(&self.id);
        self.registry.observer.connection_closed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPS: Caps = Caps {
        total: 3,
        per_address: 2,
    };

    fn address(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn an_idle_connection_of_the_biggest_holder_gives_way_and_a_busy_one_never_does() {
        let registry = Arc::new(Registry::new(Arc::new(crate::http::observer::Unobserved)));
        let few = registry.admit(address(1), CAPS).unwrap();
        let many = registry.admit(address(2), CAPS).unwrap();
        let many_later = registry.admit(address(2), CAPS).unwrap();
        let newcomer = registry.admit(address(3), CAPS).unwrap();
        assert!(
            many.evict.is_cancelled(),
            "the biggest holder's idlest gives way"
        );
        assert!(!few.evict.is_cancelled(), "a client with few is left alone");
        let _busy = [
            few.activity.start(),
            many_later.activity.start(),
            newcomer.activity.start(),
        ];
        assert!(registry.admit(address(4), CAPS).is_none(), "all are busy");
        assert_eq!(registry.len(), 3);
        drop(many);
        assert_eq!(registry.len(), 3, "an evicted connection was already out");
    }

    #[test]
    fn one_address_gives_way_to_itself_only() {
        let registry = Arc::new(Registry::new(Arc::new(crate::http::observer::Unobserved)));
        let first = registry.admit(address(1), CAPS).unwrap();
        let _other = registry.admit(address(2), CAPS).unwrap();
        let _second = registry.admit(address(1), CAPS).unwrap();
        let _third = registry.admit(address(1), CAPS).unwrap();
        assert!(first.evict.is_cancelled(), "the address's idlest gives way");
        assert_eq!(registry.len(), 3);
    }
}
