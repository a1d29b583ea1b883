//! Assembling a server's tools: [`Toolbox`] takes each declared tool, the call policies and
//! the server's own layers, checks what the compiler could not (two tools with one name, an
//! output type that cannot be published, a default its argument refuses), and builds the rmcp
//! router whose routes run each call (see `route`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};

use crate::layer::Layers;
use crate::policy::RateLimit;
use crate::policy::idempotency::{
    DEFAULT_EXPIRY, DynStore, Idempotency, IdempotencyStore, MemoryStore, Running,
};
use crate::policy::rate_limit::{Buckets, RateLimits};
use crate::policy::result_size::ResultSize;
use crate::policy::timeout::Timeouts;
use crate::route::{Routing, definition, routed};
use crate::schema::OutputSchemaError;
use crate::{CallRecord, Confirmations, Labels, Layer, Run, ToolSpec};

/// Assembles every tool of a server into one rmcp [`ToolRouter`], refusing two tools with one
/// name, output types that cannot be published, and declared defaults or examples that their
/// arguments would refuse.
///
/// ```
/// # use toolkit::Toolbox;
/// # struct Server;
/// let router = Toolbox::<Server>::new().build().unwrap();
/// assert!(router.list_all().is_empty());
/// ```
pub struct Toolbox<S> {
    pub(crate) routes: Vec<PendingRoute<S>>,
    pub(crate) specs: Vec<&'static ToolSpec>,
    pub(crate) problems: Vec<String>,
    routing: Routing,
    policies: Policies,
    /// The server's own layers, in the order added.
    layers: Layers,
}

/// The call policies chosen for a toolbox's tools, beyond what each declares.
struct Policies {
    timeout: Option<Duration>,
    rate_limit: Option<RateLimit>,
    /// Rate limits chosen for tools by name, in place of what they declare.
    rate_limits: Vec<(&'static str, Option<RateLimit>)>,
    max_result_bytes: usize,
    /// Where the results of calls with an idempotency key are kept; in memory unless chosen.
    idempotency_store: Option<Arc<dyn DynStore>>,
    idempotency_expiry: Duration,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            timeout: None,
            rate_limit: None,
            rate_limits: Vec::new(),
            max_result_bytes: crate::policy::MAX_RESULT_BYTES,
            idempotency_store: None,
            idempotency_expiry: DEFAULT_EXPIRY,
        }
    }
}

/// A tool's route, made when the toolbox is built, with the settings chosen by then.
pub(crate) struct PendingRoute<S> {
    pub(crate) name: &'static str,
    definition: rmcp::model::Tool,
    make: fn(Arc<Routing>) -> Result<ToolRoute<S>, OutputSchemaError>,
}

impl<S: Send + Sync + 'static> Default for Toolbox<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Send + Sync + 'static> Toolbox<S> {
    /// An empty toolbox.
    pub fn new() -> Self {
        Toolbox {
            routes: Vec::new(),
            specs: Vec::new(),
            problems: Vec::new(),
            routing: Routing {
                heartbeat: Some(crate::policy::HEARTBEAT_INTERVAL),
                ..Routing::default()
            },
            policies: Policies::default(),
            layers: Layers::new(),
        }
    }

    /// How `Validation Failed` messages name the tools' own arguments: by their wire names
    /// (the default), or capitalised. Places inside an argument and undeclared names are
    /// always shown as sent.
    ///
    /// ```
    /// # use toolkit::{Labels, Tool};
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Counts.
    /// #[derive(Tool)]
    /// #[tool(name = "count", title = "Count", output = Out,
    ///        read_only, destructive = false, idempotent, open_world = false)]
    /// pub struct Count {
    ///     #[arg(min = 1)]
    ///     max_length: u32,
    /// }
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Count {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// let router = toolkit::Toolbox::<Server>::new()
    ///     .labels(Labels::Capitalised)
    ///     .tool::<Count>()
    ///     .build()
    ///     .unwrap();
    /// # let _ = router;
    /// ```
    pub fn labels(mut self, labels: Labels) -> Self {
        self.routing.labels = labels;
        self
    }

    /// How tools declared `confirm` ask the user: the policy for clients that cannot be asked,
    /// the keys that seal confirmations, and where audit events go. By default
    /// [`Confirmations::default`]: ask where the client can, with a key of this process's own.
    pub fn confirmations(mut self, confirmations: Confirmations) -> Self {
        self.routing.confirmations = confirmations;
        self
    }

    /// Hands every call of these tools, once it has ended, to `observer`: the tool, how it
    /// ended, how long it took and who called. What a server counts in its metrics, say. It
    /// runs on the call's task before the answer goes back, so it should be quick. A second
    /// observer replaces the first.
    ///
    /// ```
    /// # use std::sync::{Arc, Mutex};
    /// # use toolkit::{CallOutcome, Tool};
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Counts.
    /// #[derive(Tool)]
    /// #[tool(name = "count", title = "Count", output = Out,
    ///        read_only, destructive = false, idempotent, open_world = false)]
    /// pub struct Count {
    ///     #[arg(min = 1)]
    ///     to: u32,
    /// }
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Count {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let record = seen.clone();
    /// let router = toolkit::Toolbox::<Server>::new()
    ///     .tool::<Count>()
    ///     .on_call(move |call| record.lock().unwrap().push((call.tool, call.outcome)))
    ///     .build()
    ///     .unwrap();
    /// # let _ = router;
    /// ```
    pub fn on_call(mut self, observer: impl Fn(&CallRecord<'_>) + Send + Sync + 'static) -> Self {
        self.routing.observer = Some(Arc::new(observer));
        self
    }

    /// Runs `layer` around every call of these tools, inside the layers added before it: see
    /// [`Layer`] for what it sees and may do, and the order a call meets the layers in.
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// How long a call of a tool that declares no `timeout` may run: past it, the call is
    /// stopped as a cancelled call is and answered `Timed Out: … did not finish within 30 s, and
    /// changed nothing. Call it again.` Time spent waiting for the user to confirm a call is
    /// not counted. By default, none: a call runs until it ends or is cancelled.
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.policies.timeout = timeout.into();
        self
    }

    /// How often one caller may call each tool that declares no `rate_limit`, counted per tool:
    /// see [`RateLimit`]. By default, as often as it likes.
    pub fn rate_limit(mut self, limit: impl Into<Option<RateLimit>>) -> Self {
        self.policies.rate_limit = limit.into();
        self
    }

    /// How often one caller may call the tool named `tool`, in place of its declared
    /// `rate_limit` and of the default (`None`: as often as it likes): what an operator
    /// chooses from the command line. A name no tool added so far has is a problem
    /// [`build`](Self::build) reports.
    pub fn rate_limit_for(mut self, tool: &str, limit: impl Into<Option<RateLimit>>) -> Self {
        match self.specs.iter().find(|spec| spec.name == tool) {
            Some(spec) => self.policies.rate_limits.push((spec.name, limit.into())),
            None => {
                let names = self.specs.iter().map(|spec| spec.name);
                self.problems
                    .push(crate::selection::unknown_tool(tool, names));
            }
        }
        self
    }

    /// The most bytes a successful result may have ([`Answer::size`]): a larger one is
    /// answered `Result Too Large`, which asks the model for less (or, for a tool that changes
    /// something, says the change is kept). By default
    /// [`MAX_RESULT_BYTES`](crate::policy::MAX_RESULT_BYTES), a megabyte.
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.policies.max_result_bytes = bytes;
        self
    }

    /// Where the results of calls made with an `idempotencyKey` are kept (see
    /// [`idempotency`](crate::policy::idempotency)): by default a [`MemoryStore`], which a
    /// server with replicas replaces with one in the database they share.
    pub fn idempotency_store(mut self, store: impl IdempotencyStore) -> Self {
        self.policies.idempotency_store = Some(Arc::new(store));
        self
    }

    /// How long the result of a call made with an `idempotencyKey` is kept: past it, the key
    /// may be used again. By default [`DEFAULT_EXPIRY`], a day.
    pub fn idempotency_expiry(mut self, expiry: Duration) -> Self {
        self.policies.idempotency_expiry = expiry;
        self
    }

    /// How long a call that carries a `progressToken` may go without a progress notification
    /// before the toolkit sends one of its own, so that a client that gives up on a silent
    /// call keeps waiting for a slow one (`None`: never). By default
    /// [`HEARTBEAT_INTERVAL`](crate::policy::HEARTBEAT_INTERVAL), five seconds.
    pub fn heartbeat(mut self, every: impl Into<Option<Duration>>) -> Self {
        self.routing.heartbeat = every.into().filter(|every| !every.is_zero());
        self
    }

    /// Adds tool `T`, reading each default and example declared in its arguments as a call
    /// would: one its argument refuses (what the compiler could not check, a URL say) is a
    /// problem [`build`](Self::build) reports, naming the tool and the argument.
    pub fn tool<T: Run<S>>(mut self) -> Self {
        let name = T::SPEC.name;
        if self.routes.iter().any(|route| route.name == name) {
            self.problems.push(format!(
                "two tools are named `{name}`; tool names must be unique"
            ));
        }
        self.specs.push(T::SPEC);
        self.problems.extend(T::SPEC.refused_literals());
        match definition::<T>() {
            Ok(definition) => self.routes.push(PendingRoute {
                name,
                definition,
                make: routed::<S, T>,
            }),
            Err(error) => self.problems.push(format!(
                "the output type of `{name}` ({}) cannot be an MCP output schema: {error}",
                std::any::type_name::<T::Output>()
            )),
        }
        self
    }

    /// The spec of every tool added so far, to look up by name: what a layer in front of rmcp
    /// (an HTTP server checking tokens) reads to learn the scope a call needs before it runs.
    ///
    /// ```
    /// # use toolkit::Tool;
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Writes a thing.
    /// #[derive(Tool)]
    /// #[tool(name = "write", title = "Write", output = Out, scope = "things.write",
    ///        read_only = false, destructive, idempotent = false, open_world = false)]
    /// pub struct Write {}
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Write {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    ///
    /// let specs = toolkit::Toolbox::<Server>::new().tool::<Write>().specs();
    /// assert_eq!(specs.get("write").and_then(|spec| spec.scope), Some("things.write"));
    /// assert!(specs.get("read").is_none());
    /// assert_eq!(specs.scopes(), ["things.write"]);
    /// ```
    pub fn specs(&self) -> ToolSpecs {
        ToolSpecs {
            specs: self.specs.clone(),
        }
    }

    /// Every problem found while adding and selecting tools, which [`build`](Self::build)
    /// would report.
    pub fn check(&self) -> Result<(), ToolboxError> {
        if self.problems.is_empty() {
            return Ok(());
        }
        Err(ToolboxError {
            problems: self.problems.clone(),
        })
    }

    /// What `tools/list` will list: each tool's definition, in name order.
    pub fn definitions(&self) -> Vec<rmcp::model::Tool> {
        let mut tools: Vec<_> = self
            .routes
            .iter()
            .map(|route| route.definition.clone())
            .collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    /// The label style chosen.
    pub(crate) fn chosen_labels(&self) -> Labels {
        self.routing.labels
    }

    /// The router, or every problem found while adding tools.
    pub fn build(mut self) -> Result<ToolRouter<S>, ToolboxError> {
        self.check()?;
        self.routing.layers = self.policies.layers(&self.specs, self.layers);
        if self.specs.iter().any(|spec| spec.idempotency_key) {
            self.routing.idempotency_expiry = Some(self.policies.idempotency_expiry);
        }
        let routing = Arc::new(self.routing);
        let mut router = ToolRouter::new();
        for pending in self.routes {
            // Each definition was made once already, when the tool was added.
            match (pending.make)(routing.clone()) {
                Ok(route) => router = router.with_route(route),
                Err(error) => {
                    return Err(ToolboxError {
                        problems: vec![format!("the output type of `{}`: {error}", pending.name)],
                    });
                }
            }
        }
        Ok(router)
    }
}

impl Policies {
    /// Every layer a call of `specs` meets, outermost first (see [`Layer`]): the rate limit,
    /// the server's own `layers`, the idempotency key, the time limit and the cap on a result's
    /// size. A policy no tool has is left out.
    fn layers(&self, specs: &[&'static ToolSpec], layers: Layers) -> Layers {
        let mut all: Layers = Vec::new();
        let limited: HashMap<&'static str, Buckets> = specs
            .iter()
            .filter_map(|spec| {
                let chosen = self
                    .rate_limits
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == spec.name);
                let limit = match chosen {
                    Some((_, chosen)) => *chosen,
                    None => spec.rate_limit.or(self.rate_limit),
                };
                Some((spec.name, Buckets::new(limit?)))
            })
            .collect();
        if !limited.is_empty() {
            all.push(Arc::new(RateLimits { tools: limited }));
        }
        all.extend(layers);
        if specs.iter().any(|spec| spec.idempotency_key) {
            let store = (self.idempotency_store.clone())
                .unwrap_or_else(|| Arc::new(MemoryStore::default()));
            all.push(Arc::new(Idempotency {
                store,
                default_timeout: self.timeout,
                running: Running::default(),
            }));
        }
        if self.timeout.is_some() || specs.iter().any(|spec| spec.timeout.is_some()) {
            all.push(Arc::new(Timeouts {
                default: self.timeout,
            }));
        }
        all.push(Arc::new(ResultSize {
            limit: self.max_result_bytes,
        }));
        all
    }
}

/// The specs of a [`Toolbox`]'s tools, looked up by tool name.
#[derive(Debug, Clone, Default)]
pub struct ToolSpecs {
    specs: Vec<&'static ToolSpec>,
}

impl ToolSpecs {
    /// The spec of the tool named `name`, if the toolbox has one.
    pub fn get(&self, name: &str) -> Option<&'static ToolSpec> {
        self.specs.iter().copied().find(|spec| spec.name == name)
    }

    /// Every spec, in the order the tools were added.
    pub fn iter(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.specs.iter().copied()
    }

    /// Every scope some tool needs, each once, in the order the tools were added.
    pub fn scopes(&self) -> Vec<&'static str> {
        let mut scopes: Vec<&'static str> = Vec::new();
        for scope in self.specs.iter().filter_map(|spec| spec.scope) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
    }
}

/// The problems that stop a [`Toolbox`] from building, reported at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolboxError {
    /// One sentence per problem.
    pub problems: Vec<String>,
}

impl fmt::Display for ToolboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for ToolboxError {}

impl fmt::Display for OutputSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutputSchemaError::NotAnObject => "its schema must be a JSON object",
            OutputSchemaError::Reference => {
                "a recursive type needs a $ref, which clients may not resolve"
            }
        })
    }
}

impl std::error::Error for OutputSchemaError {}
