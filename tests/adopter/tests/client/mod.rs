//! What the notebook's tests drive it with where the toolkit's test client cannot go (over
//! HTTP, and the built binary on its own stdio): a user who answers the notebook's questions,
//! and the requests and results of a call.

// Each test target uses part of it.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, FormElicitationCapability,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};

/// A client on `version` whose user answers every question with `yes` or no, and remembers
/// the questions.
#[derive(Clone)]
pub struct User {
    pub version: ProtocolVersion,
    yes: bool,
    pub asked: Arc<Mutex<Vec<String>>>,
}

impl User {
    pub fn new(version: ProtocolVersion, yes: bool) -> User {
        User {
            version,
            yes,
            asked: Arc::default(),
        }
    }
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
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
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("the notebook asks with a form");
        };
        self.asked.lock().unwrap().push(message);
        Ok(if self.yes {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": true }))
        } else {
            ElicitResult::new(ElicitationAction::Decline)
        })
    }
}

pub fn call(tool: &str, arguments: Value) -> CallToolRequestParams {
    let arguments = arguments.as_object().expect("an object").clone();
    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)
}

pub fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}
