//! Which trace a tool call belongs to, so that its log lines can be told apart and followed
//! from the client through any replica: the trace id of the W3C `traceparent` the client sent
//! in the request's `_meta` (where the 2026-07-28 revision of MCP carries trace context), or,
//! without one, a request id of the server's own.

use rmcp::model::MetaObject;

/// The id a call's log lines carry: the client's trace id, or a new request id.
pub(crate) fn call_id(meta: &MetaObject) -> String {
    match meta.get_traceparent().and_then(trace_id) {
        Some(trace_id) => trace_id.to_owned(),
        // A simple uuid is 32 hex digits: half of one is plenty for telling calls apart.
        None => uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
    }
}

/// The trace id of a `traceparent` (`00-<trace id>-<parent id>-<flags>`): 32 lowercase hex
/// digits, not all zero. `None` for a value that is not one, which W3C Trace Context says to
/// ignore.
fn trace_id(traceparent: &str) -> Option<&str> {
    let mut fields = traceparent.trim().split('-');
    let (version, trace_id, parent_id, flags) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let hex = |text: &str, length: usize| {
        text.len() == length && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let nonzero = |text: &str| text.bytes().any(|b| b != b'0');
    let well_formed = hex(version, 2)
        && version != "ff"
        // Version 00 has exactly four fields; a later version may add more.
        && (version != "00" || fields.next().is_none())
        && hex(trace_id, 32)
        && nonzero(trace_id)
        && hex(parent_id, 16)
        && nonzero(parent_id)
        && hex(flags, 2);
    well_formed.then_some(trace_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_gives_its_trace_id() {
        let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        assert_eq!(
            trace_id(&format!("00-{trace}-00f067aa0ba902b7-01")),
            Some(trace)
        );
        assert_eq!(
            trace_id(&format!("01-{trace}-00f067aa0ba902b7-01-more")),
            Some(trace)
        );
    }

    #[test]
    fn a_malformed_traceparent_is_ignored() {
        for traceparent in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert_eq!(trace_id(traceparent), None, "{traceparent:?}");
        }
    }

    #[test]
    fn without_a_trace_a_call_gets_a_request_id_of_its_own() {
        let meta = MetaObject::default();
        let (first, second) = (call_id(&meta), call_id(&meta));
        assert_eq!(first.len(), 16);
        assert_ne!(first, second);
    }
}
