//! Declared confirmation: a tool declared `#[tool(confirm)]` runs only once the user has said
//! yes to the question its [`Confirm`] impl words. How the user is asked depends on the client:
//!
//! - on MCP 2026-07-28, to a client whose request declares form elicitation: the call answers
//!   `input_required`, with one elicitation form holding a required boolean, `confirm`, and a
//!   `requestState` sealed with HMAC-SHA256 over the tool, its arguments and the caller, good
//!   for [`CONFIRMATION_LIFETIME`]. The client retries the call with the user's answer and the
//!   state, on any replica that holds the same key ([`StateKeys`]);
//! - before 2026-07-28, to a client that declared elicitation when it initialized (over stdio):
//!   the server sends `elicitation/create` and waits for the answer, for as long;
//! - a client that cannot be asked is never sent a question: the server's [`ConfirmPolicy`]
//!   says whether the call runs.
//!
//! Every call of a destructive (or confirmed) tool that gets this far ends in one [`Audit`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, JsonObject, ProtocolVersion, Request,
    RequestStateCodec, RequestStateError, SealOptions,
};
use rmcp::service::Peer;
use serde_json::Value;

use crate::__private::Confirms;
use crate::{Caller, Context, Run, Tool, ToolError, Uuid};

/// How long the user has to answer, and how long a sealed confirmation stays good.
pub const CONFIRMATION_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// The key of the one input request, and the name of its form's one field.
const CONFIRM: &str = "confirm";

/// What a tool declared `#[tool(confirm)]` asks the user before it runs on state `S`.
///
/// `confirmation` runs once the arguments are valid and the ids checked (unless the tool
/// checks them itself), and says in words what is about to happen:
/// `Delete the 4-star review of "Heat" by Ana Lima? This can't be undone.` It may look things
/// up; returning [`ToolError::Missing`] there is answered as `Run::run`'s would be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared with `#[tool(confirm)]`, so it must say what the user is asked to confirm",
    label = "needs `impl toolkit::Confirm<{S}> for {Self}`",
    note = "implement `toolkit::Confirm<{S}>` for `{Self}`, whose `confirmation` words the question, or drop `confirm`"
)]
pub trait Confirm<S>: Tool {
    /// What did not happen, when the user declines: the call answers `Cancelled: ` and this
    /// (`the review was not deleted.`).
    const DECLINED: &'static str = "the tool did not run.";

    /// The question the user is asked, as a sentence or two.
    fn confirmation(
        &self,
        state: &S,
        context: &Context,
    ) -> impl Future<Output = Result<String, ToolError>> + Send;
}

/// What a server does with a confirmed tool's call when the client cannot ask the user (it
/// declared no elicitation, or it speaks stateless HTTP before 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConfirmPolicy {
    /// Ask where the client can; elsewhere run the call, trusting the model to have asked.
    #[default]
    Ask,
    /// Ask where the client can; elsewhere refuse the call.
    Require,
    /// Never ask.
    Off,
}

impl std::str::FromStr for ConfirmPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "ask" => Ok(ConfirmPolicy::Ask),
            "require" => Ok(ConfirmPolicy::Require),
            "off" => Ok(ConfirmPolicy::Off),
            other => Err(format!("`{other}` is not ask, require or off")),
        }
    }
}

/// How a destructive call was confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmOutcome {
    /// The user said yes.
    Confirmed,
    /// The user said no, or dismissed the question: nothing ran.
    Declined,
    /// The call ran without asking: the tool does not ask, the policy is off, or the client
    /// cannot be asked and the policy lets it run.
    NotAsked,
    /// The call was refused: the client cannot be asked and the policy requires it, or the
    /// confirmation it brought back was stale or forged. Nothing ran.
    Refused,
}

impl ConfirmOutcome {
    /// `confirmed`, `declined`, `not asked` or `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfirmOutcome::Confirmed => "confirmed",
            ConfirmOutcome::Declined => "declined",
            ConfirmOutcome::NotAsked => "not asked",
            ConfirmOutcome::Refused => "refused",
        }
    }
}

/// One call of a destructive (or confirmed) tool, as an audit log records it: no free text
/// from the arguments, only the ids the tool was given.
#[derive(Debug)]
pub struct Audit<'a> {
    /// The tool's name.
    pub tool: &'static str,
    /// Who called, where the transport knows.
    pub caller: Option<&'a Caller>,
    /// The ids of the tool's `exists` arguments that were passed, in argument order.
    pub ids: Vec<Uuid>,
    /// How the call was confirmed.
    pub outcome: ConfirmOutcome,
}

/// The keys that seal and open confirmations: the first seals, every one opens, so that a key
/// can be rotated in (second, then first) and out without refusing a confirmation in flight.
/// Replicas that share the keys accept each other's confirmations.
pub struct StateKeys {
    codecs: Vec<RequestStateCodec>,
    random: bool,
}

/// Why a key file's text holds no usable keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateKeyError {
    /// No key in it.
    NoKey,
    /// The key on this line (counted from 1) is shorter than 32 bytes.
    TooShort { line: usize },
}

impl fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateKeyError::NoKey => f.write_str("it holds no key: write one key per line"),
            StateKeyError::TooShort { line } => write!(
                f,
                "the key on line {line} is shorter than {} bytes; make one with \
                 `openssl rand -hex 32`",
                RequestStateCodec::MIN_KEY_LENGTH
            ),
        }
    }
}

impl std::error::Error for StateKeyError {}

impl StateKeys {
    /// A key of this process's own, made at random: confirmations are good only on this
    /// process, until it stops.
    pub fn random() -> StateKeys {
        let key: Vec<u8> = (0..3).flat_map(|_| Uuid::new_v4().into_bytes()).collect();
        StateKeys {
            codecs: vec![RequestStateCodec::new_unchecked(key)],
            random: true,
        }
    }

    /// The keys of a key file's text: one per line, the first sealing; blank lines and lines
    /// that start with `#` are skipped. A key is the line's text, at least 32 bytes of it.
    pub fn parse(text: &str) -> Result<StateKeys, StateKeyError> {
        let mut codecs = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let key = line.trim();
            if key.is_empty() || key.starts_with('#') {
                continue;
            }
            let codec = RequestStateCodec::try_new(key.as_bytes())
                .map_err(|_| StateKeyError::TooShort { line: index + 1 })?;
            codecs.push(codec);
        }
        if codecs.is_empty() {
            return Err(StateKeyError::NoKey);
        }
        Ok(StateKeys {
            codecs,
            random: false,
        })
    }

    /// Whether the key was made at random by [`StateKeys::random`].
    pub fn is_random(&self) -> bool {
        self.random
    }

    /// How many keys open confirmations.
    pub fn len(&self) -> usize {
        self.codecs.len()
    }

    /// Never: there is always a key that seals.
    pub fn is_empty(&self) -> bool {
        self.codecs.is_empty()
    }

    fn seal(&self, payload: &[u8], bound_to: &[u8], lifetime: Duration) -> String {
        let options = SealOptions::new().associated_data(bound_to).ttl(lifetime);
        // `parse` and `random` always hold a key.
        match self.codecs.first() {
            Some(codec) => codec.seal_with(payload, &options),
            None => String::new(),
        }
    }

    /// Whether `sealed` was sealed by one of the keys for `bound_to`, and is still good.
    fn open(&self, sealed: &str, bound_to: &[u8]) -> bool {
        for codec in &self.codecs {
            match codec.open_with(sealed, bound_to) {
                Ok(_) => return true,
                // Sealed by this key, but too long ago.
                Err(RequestStateError::Expired) => return false,
                Err(_) => {}
            }
        }
        false
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKeys")
            .field("keys", &self.codecs.len())
            .field("random", &self.random)
            .finish_non_exhaustive()
    }
}

/// A server's settings for confirmed tools: its policy, its keys, and where audit events go.
#[derive(Clone)]
pub struct Confirmations {
    policy: ConfirmPolicy,
    keys: Arc<StateKeys>,
    lifetime: Duration,
    audit: Arc<dyn Fn(&Audit<'_>) + Send + Sync>,
}

impl Confirmations {
    /// Confirmations under `policy`, sealed with `keys`; audit events are logged (target
    /// `audit`, at info).
    pub fn new(policy: ConfirmPolicy, keys: StateKeys) -> Confirmations {
        Confirmations {
            policy,
            keys: Arc::new(keys),
            lifetime: CONFIRMATION_LIFETIME,
            audit: Arc::new(log_audit),
        }
    }

    /// The same settings, with confirmations good for `lifetime` (and the user given as long
    /// to answer) instead of [`CONFIRMATION_LIFETIME`].
    pub fn lifetime(mut self, lifetime: Duration) -> Confirmations {
        self.lifetime = lifetime;
        self
    }

    /// The same settings, handing each audit event to `audit` instead of logging it.
    pub fn audit(mut self, audit: impl Fn(&Audit<'_>) + Send + Sync + 'static) -> Confirmations {
        self.audit = Arc::new(audit);
        self
    }

    /// The policy for clients that cannot be asked.
    pub fn policy(&self) -> ConfirmPolicy {
        self.policy
    }
}

impl Default for Confirmations {
    /// [`ConfirmPolicy::Ask`], with a random key.
    fn default() -> Self {
        Confirmations::new(ConfirmPolicy::default(), StateKeys::random())
    }
}

impl fmt::Debug for Confirmations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Confirmations")
            .field("policy", &self.policy)
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

fn log_audit(audit: &Audit<'_>) {
    let caller = audit
        .caller
        .map_or("none", |caller| caller.subject.as_str());
    tracing::info!(
        target: "audit",
        tool = audit.tool,
        caller,
        ids = ?audit.ids,
        outcome = audit.outcome.as_str(),
        "destructive call"
    );
}

/// What the toolkit does next with a call that passed its checks.
pub(crate) enum Step {
    /// Run it.
    Run,
    /// Answer `input_required`: the client asks the user and retries.
    Ask(InputRequiredResult),
}

/// Asks the user to confirm a call of `T` where it declares `confirm`, with the `question`
/// its `confirmation` words (awaited only if the user is asked), and records the call of a
/// destructive tool, with the ids of its `exists` arguments, as an [`Audit`].
pub(crate) async fn decide<S, T>(
    question: impl Future<Output = Result<String, ToolError>> + Send,
    ids: &[Option<Uuid>],
    context: &Context,
    arguments: Option<&JsonObject>,
    confirmations: &Confirmations,
) -> Result<Step, ToolError>
where
    S: Sync,
    T: Run<S>,
{
    let spec = T::SPEC;
    let decided = if spec.confirm && confirmations.policy != ConfirmPolicy::Off {
        ask::<S, T>(question, context, arguments, confirmations).await
    } else {
        Ok(Asked::Answered(ConfirmOutcome::NotAsked))
    };
    let outcome = match &decided {
        Ok(Asked::Answered(outcome)) => Some(*outcome),
        Ok(Asked::Later(_)) => None,
        Err(ToolError::Declined(_)) => Some(ConfirmOutcome::Declined),
        Err(ToolError::StaleConfirmation | ToolError::CannotConfirm) => {
            Some(ConfirmOutcome::Refused)
        }
        // Not asked at all: the question could not be put (an id names nothing, say).
        Err(_) => None,
    };
    let audited = spec.confirm || (spec.hints.destructive && !spec.hints.read_only);
    if let Some(outcome) = outcome.filter(|_| audited) {
        (confirmations.audit)(&Audit {
            tool: spec.name,
            caller: context.caller(),
            ids: ids.iter().flatten().copied().collect(),
            outcome,
        });
    }
    match decided? {
        Asked::Answered(_) => Ok(Step::Run),
        Asked::Later(result) => Ok(Step::Ask(result)),
    }
}

/// Where the asking stands.
enum Asked {
    /// The call may run, confirmed or not asked.
    Answered(ConfirmOutcome),
    /// The client is to ask, and retry.
    Later(InputRequiredResult),
}

/// How the user can be asked, given what the client declared.
enum Channel<'a> {
    /// Answer `input_required` (2026-07-28 and later).
    InputRequired,
    /// Send `elicitation/create` and wait (before 2026-07-28, in a session).
    Elicitation(&'a Peer<RoleServer>),
    /// They cannot be asked.
    None,
}

async fn ask<S, T>(
    question: impl Future<Output = Result<String, ToolError>> + Send,
    context: &Context,
    arguments: Option<&JsonObject>,
    confirmations: &Confirmations,
) -> Result<Asked, ToolError>
where
    S: Sync,
    T: Run<S>,
{
    let bound_to = binding(T::SPEC.name, arguments, context.caller());
    if context.retry.is_retry() {
        let sealed = context.retry.request_state.as_deref();
        if !sealed.is_some_and(|sealed| confirmations.keys.open(sealed, bound_to.as_bytes())) {
            return Err(ToolError::StaleConfirmation);
        }
        let answer = (context.retry.input_responses.as_ref())
            .and_then(|responses| responses.get(CONFIRM))
            .and_then(|answer| serde_json::from_value::<ElicitResult>(answer.clone()).ok());
        return match answer {
            Some(answer) if said_yes(&answer) => Ok(Asked::Answered(ConfirmOutcome::Confirmed)),
            _ => Err(ToolError::Declined(<T as Confirms<S>>::DECLINED)),
        };
    }
    let channel = channel(context);
    if matches!(channel, Channel::None) {
        return match confirmations.policy {
            ConfirmPolicy::Require => Err(ToolError::CannotConfirm),
            ConfirmPolicy::Ask | ConfirmPolicy::Off => {
                Ok(Asked::Answered(ConfirmOutcome::NotAsked))
            }
        };
    }
    let form = form(question.await?)?;
    match channel {
        Channel::InputRequired => {
            let sealed = confirmations.keys.seal(
                T::SPEC.name.as_bytes(),
                bound_to.as_bytes(),
                confirmations.lifetime,
            );
            let mut requests = InputRequests::new();
            requests.insert(
                CONFIRM.to_owned(),
                InputRequest::Elicitation(Request::new(form)),
            );
            Ok(Asked::Later(InputRequiredResult::new(
                Some(requests),
                Some(sealed),
            )))
        }
        Channel::Elicitation(peer) => {
            // A cancelled call stops waiting here: the toolkit drops the whole call. The time
            // the user takes is not the call's.
            let _waiting = context.user_time.waiting();
            match peer
                .create_elicitation_with_timeout(form, Some(confirmations.lifetime))
                .await
            {
                Ok(answer) if said_yes(&answer) => Ok(Asked::Answered(ConfirmOutcome::Confirmed)),
                Ok(_) => Err(ToolError::Declined(<T as Confirms<S>>::DECLINED)),
                Err(error) => {
                    tracing::info!(%error, "the user's confirmation did not come");
                    Err(ToolError::Declined(<T as Confirms<S>>::DECLINED))
                }
            }
        }
        Channel::None => Ok(Asked::Answered(ConfirmOutcome::NotAsked)),
    }
}

/// How the client of this call can ask its user, if at all. Only a client that declared form
/// elicitation is ever asked.
fn channel(context: &Context) -> Channel<'_> {
    let Some(client) = &context.client else {
        return Channel::None;
    };
    if !client.capabilities.as_ref().is_some_and(declares_forms) {
        return Channel::None;
    }
    match &client.protocol {
        Some(version) if *version >= ProtocolVersion::V_2026_07_28 => Channel::InputRequired,
        _ => Channel::Elicitation(&client.peer),
    }
}

/// Whether the capabilities declare form elicitation: `elicitation.form`, or an `elicitation`
/// that names no mode, which MCP reads as forms only.
fn declares_forms(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// The form that asks `question`, with one required boolean, `confirm`.
fn form(question: String) -> Result<ElicitRequestParams, ToolError> {
    let schema = ElicitationSchema::builder()
        .required_bool_with(CONFIRM, |field| field.title("Confirm"))
        .build()
        .map_err(ToolError::unexpected)?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question,
        requested_schema: schema,
    })
}

/// Whether the user accepted the form with `confirm` ticked.
fn said_yes(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && (answer.content.as_ref())
            .and_then(|content| content.get(CONFIRM))
            .and_then(Value::as_bool)
            == Some(true)
}

/// What a sealed confirmation is bound to: the tool, its arguments (keys sorted, so that a
/// client that sends them in another order still matches) and the caller.
fn binding(tool: &str, arguments: Option<&JsonObject>, caller: Option<&Caller>) -> String {
    let arguments = arguments.map_or(Value::Object(JsonObject::new()), |arguments| {
        sorted(&Value::Object(arguments.clone()))
    });
    let caller = caller.map(|caller| (&caller.subject, &caller.client_id));
    serde_json::json!([CONFIRM, tool, arguments, caller]).to_string()
}

/// `value` with every object's keys in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            let sorted = keys
                .into_iter()
                .map(|key| (key.clone(), sorted(&object[key])))
                .collect();
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_A: &str = "0123456789abcdef0123456789abcdef-a";
    const KEY_B: &str = "0123456789abcdef0123456789abcdef-b";

    #[test]
    fn a_confirmation_opens_only_for_what_it_was_sealed_for() {
        let keys = StateKeys::parse(KEY_A).unwrap();
        let sealed = keys.seal(b"reviews_delete", b"bound", CONFIRMATION_LIFETIME);
        assert!(keys.open(&sealed, b"bound"));
        assert!(!keys.open(&sealed, b"other"));
        let mut forged = sealed.clone();
        forged.push('x');
        assert!(!keys.open(&forged, b"bound"));
    }

    #[test]
    fn a_rotated_key_still_opens_what_it_sealed() {
        let old = StateKeys::parse(KEY_A).unwrap();
        let sealed = old.seal(b"t", b"bound", CONFIRMATION_LIFETIME);
        let rotated = StateKeys::parse(&format!("# new first\n{KEY_B}\n\n{KEY_A}\n")).unwrap();
        assert_eq!(rotated.len(), 2);
        assert!(rotated.open(&sealed, b"bound"));
        assert!(!StateKeys::parse(KEY_B).unwrap().open(&sealed, b"bound"));
    }

    #[test]
    fn key_files_without_a_good_key_are_refused() {
        assert_eq!(
            StateKeys::parse("\n# none\n").err(),
            Some(StateKeyError::NoKey)
        );
        let short = format!("{KEY_A}\nshort\n");
        assert_eq!(
            StateKeys::parse(&short).err(),
            Some(StateKeyError::TooShort { line: 2 })
        );
    }

    #[test]
    fn the_binding_ignores_the_order_of_the_arguments() {
        let one = serde_json::json!({ "a": 1, "b": { "y": 2, "x": 3 } });
        let other = serde_json::json!({ "b": { "x": 3, "y": 2 }, "a": 1 });
        assert_eq!(
            binding("t", one.as_object(), None),
            binding("t", other.as_object(), None)
        );
        let ana = Caller::new("ana", vec![]);
        assert_ne!(
            binding("t", one.as_object(), None),
            binding("t", one.as_object(), Some(&ana))
        );
    }
}
