//! The client side of a [`TestClient`](super::TestClient): what it tells the server it can do,
//! and the user who answers the server's questions.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};

use super::Answer;

/// A client on one protocol version whose user, if it can be asked, gives one answer to every
/// question; the questions are kept.
#[derive(Clone)]
pub(super) struct User {
    version: ProtocolVersion,
    /// `None`: the client does not declare elicitation.
    answer: Option<Answer>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl User {
    pub(super) fn new(version: ProtocolVersion, answer: Option<Answer>) -> User {
        User {
            version,
            answer,
            asked: Arc::default(),
        }
    }

    /// The questions asked so far.
    pub(super) fn asked(&self) -> Vec<String> {
        // A test that panicked while holding the lock has failed already; what was asked
        // before still stands.
        (self.asked.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.answer.is_some() {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        let mut config = ClientConfig::default();
        config.protocol_version = self.version.clone();
        config.capabilities = capabilities;
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let question = match request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message,
            ElicitRequestParams::UrlElicitationParams { message, .. } => message,
            // A kind of question rmcp knows and this user does not: it is kept unread.
            _ => String::new(),
        };
        (self.asked.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .push(question);
        // A client that did not declare elicitation is asked only by a server that breaks the
        // protocol: it dismisses the question, as a user who never saw it.
        Ok(match self.answer.unwrap_or(Answer::Cancel) {
            Answer::Accept => ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "confirm": true })),
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
            Answer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}
