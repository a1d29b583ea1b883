//! Serving some of a toolbox's tools: only those that change nothing (read-only deployments),
//! or only those named (fewer tools, fewer tokens in every conversation). The choice is made
//! from what the tools declare, so a server names no tool by hand for it.

use crate::Toolbox;
use crate::error::join_or;

/// Which tools of a [`Toolbox`] to serve. The default serves every one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Only the tools whose `read_only` hint is true.
    pub read_only: bool,
    /// Only the tools with these names (`None`: every tool).
    pub names: Option<Vec<String>>,
}

impl<S: Send + Sync + 'static> Toolbox<S> {
    /// Keeps only the tools `selection` chooses, in the order they were added. A name that no
    /// tool has, or a tool named that is not read-only when only read-only tools are served, is
    /// a problem that [`build`](Toolbox::build) reports (with the name meant, when one is near).
    ///
    /// ```
    /// # use toolkit::{Selection, Tool, Toolbox};
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Reads a thing.
    /// #[derive(Tool)]
    /// #[tool(name = "read", title = "Read", output = Out,
    ///        read_only, destructive = false, idempotent, open_world = false)]
    /// pub struct Read {}
    /// /// Writes a thing.
    /// #[derive(Tool)]
    /// #[tool(name = "write", title = "Write", output = Out,
    ///        read_only = false, destructive, idempotent = false, open_world = false)]
    /// pub struct Write {}
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Read {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// # impl toolkit::Run<Server> for Write {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// let both = || Toolbox::<Server>::new().tool::<Read>().tool::<Write>();
    /// let read_only = Selection { read_only: true, names: None };
    /// let router = both().select(&read_only).build().unwrap();
    /// assert_eq!(router.list_all().len(), 1);
    ///
    /// let misspelt = Selection { read_only: false, names: Some(vec!["wrte".into()]) };
    /// let error = both().select(&misspelt).build().unwrap_err();
    /// assert_eq!(error.to_string(), "no tool is named `wrte`: did you mean `write`?");
    /// ```
    pub fn select(mut self, selection: &Selection) -> Self {
        if let Some(names) = &selection.names {
            for name in names {
                match self.specs.iter().find(|spec| spec.name == name) {
                    None => {
                        let problem = unknown_tool(name, self.specs.iter().map(|spec| spec.name));
                        self.problems.push(problem);
                    }
                    Some(spec) if selection.read_only && !spec.hints.read_only => {
                        self.problems.push(format!(
                            "`{name}` is not read-only, and only read-only tools are served"
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        let chosen = |name: &str, read_only: bool| {
            (read_only || !selection.read_only)
                && selection
                    .names
                    .as_ref()
                    .is_none_or(|names| names.iter().any(|named| named == name))
        };
        self.specs
            .retain(|spec| chosen(spec.name, spec.hints.read_only));
        let kept: Vec<&str> = self.specs.iter().map(|spec| spec.name).collect();
        self.routes.retain(|route| kept.contains(&route.name));
        self
    }
}

/// The problem of a name that no tool has, with the name meant when one is near.
pub(crate) fn unknown_tool<'a>(name: &str, names: impl Iterator<Item = &'a str> + Clone) -> String {
    match did_you_mean::closest(name, names.clone()) {
        Some(meant) => format!("no tool is named `{name}`: did you mean `{meant}`?"),
        None => {
            let names: Vec<&str> = names.collect();
            format!(
                "no tool is named `{name}`; the tools are {}",
                join_or(names.iter().copied(), "and")
            )
        }
    }
}
