//! Every attribute keyword except the rules' (each rule names its keys in its own module), so a
//! typo in a keyword is a compile error here.

pub const TOOL: &str = "tool";
pub const ARG: &str = "arg";
pub const ARGS: &str = "args";
pub const CHOICE: &str = "choice";

// #[tool(...)]
pub const NAME: &str = "name";
pub const TITLE: &str = "title";
pub const DESCRIPTION: &str = "description";
pub const OUTPUT: &str = "output";
pub const READ_ONLY: &str = "read_only";
pub const DESTRUCTIVE: &str = "destructive";
pub const IDEMPOTENT: &str = "idempotent";
pub const OPEN_WORLD: &str = "open_world";
pub const SCOPE: &str = "scope";
pub const ABILITY: &str = "ability";
pub const CAUTION: &str = "caution";
pub const CONFIRM: &str = "confirm";
pub const TIMEOUT: &str = "timeout";
pub const RATE_LIMIT: &str = "rate_limit";
pub const IDEMPOTENCY_KEY: &str = "idempotency_key";
pub const RENAME_ALL: &str = "rename_all";
pub const ONE_OF: &str = "one_of";
pub const ANY_OF: &str = "any_of";

pub const TOOL_KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    OUTPUT,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    SCOPE,
    ABILITY,
    CAUTION,
    CONFIRM,
    TIMEOUT,
    RATE_LIMIT,
    IDEMPOTENCY_KEY,
    RENAME_ALL,
    ONE_OF,
    ANY_OF,
];

/// What other libraries call a hint (MCP's own annotation names), suggested as the hint.
pub const TOOL_ALIASES: &[(&str, &str)] = &[
    ("read_only_hint", READ_ONLY),
    ("destructive_hint", DESTRUCTIVE),
    ("idempotent_hint", IDEMPOTENT),
    ("open_world_hint", OPEN_WORLD),
];

// #[arg(...)], besides the keys the rules read (see `rule`)
pub const DEFAULT: &str = "default";
pub const EXAMPLES: &str = "examples";
pub const MESSAGE: &str = "message";
pub const EXISTS: &str = "exists";
pub const REQUIRED_UNLESS: &str = "required_unless";
pub const IGNORED_WITH: &str = "ignored_with";
pub const RENAME: &str = "rename";
pub const EACH: &str = "each";
pub const FLATTEN: &str = "flatten";
pub const CONFLICTS_WITH: &str = "conflicts_with";
pub const REQUIRES: &str = "requires";

// #[args(...)]
pub const TAG: &str = "tag";
pub const UNTAGGED: &str = "untagged";
pub const RENAME_ALL_FIELDS: &str = "rename_all_fields";
pub const ARGS_KEYS: &[&str] = &[
    RENAME_ALL,
    RENAME_ALL_FIELDS,
    TAG,
    UNTAGGED,
    RENAME,
    ONE_OF,
    ANY_OF,
];

pub const ARG_KEYS: &[&str] = &[
    DEFAULT,
    EXAMPLES,
    MESSAGE,
    EXISTS,
    REQUIRED_UNLESS,
    IGNORED_WITH,
    RENAME,
    EACH,
    FLATTEN,
    CONFLICTS_WITH,
    REQUIRES,
];
