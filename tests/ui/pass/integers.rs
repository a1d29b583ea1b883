//! Integer arguments of every width, with either bound, both, neither, negative bounds and
//! defaults; undeclared bounds are the type's own.
use toolkit::rule::Range;
use toolkit::{DefaultValue, Kind, Presence, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Integers.
#[derive(Tool)]
#[tool(name = "integers", title = "Integers", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Integers {
    #[arg(min = 0, default = 0)]
    pub offset: u32,
    #[arg(min = 1, max = 50, default = 10)]
    pub limit: u64,
    #[arg(min = -10, max = -1)]
    pub below_zero: i32,
    #[arg(max = 100)]
    pub at_most: i64,
    pub anything: i64,
    pub maybe: Option<u32>,
    pub tiny: i8,
    #[arg(min = -1000)]
    pub small: i16,
    #[arg(max = 200, default = 5)]
    pub byte: u8,
    pub port: Option<u16>,
}

fn main() {
    let args = Integers::SPEC.args;
    assert!(args.iter().all(|arg| arg.kind == Kind::Integer && arg.rules.len() == 1));
    let ranges: Vec<Option<&Range>> = args.iter().map(|arg| arg.rule::<Range>()).collect();
    assert_eq!(ranges, [
        Some(&Range { min: 0, max: u32::MAX.into() }),
        Some(&Range { min: 1, max: 50 }),
        Some(&Range { min: -10, max: -1 }),
        Some(&Range { min: i64::MIN.into(), max: 100 }),
        Some(&Range { min: i64::MIN.into(), max: i64::MAX.into() }),
        Some(&Range { min: 0, max: u32::MAX.into() }),
        Some(&Range { min: i8::MIN.into(), max: i8::MAX.into() }),
        Some(&Range { min: -1000, max: i16::MAX.into() }),
        Some(&Range { min: 0, max: 200 }),
        Some(&Range { min: 0, max: u16::MAX.into() }),
    ]);
    let presence: Vec<Presence> = Integers::SPEC.args.iter().map(|arg| arg.presence).collect();
    assert_eq!(presence, [
        Presence::Default(DefaultValue::Integer(0)),
        Presence::Default(DefaultValue::Integer(10)),
        Presence::Required,
        Presence::Required,
        Presence::Required,
        Presence::Optional,
        Presence::Required,
        Presence::Required,
        Presence::Default(DefaultValue::Integer(5)),
        Presence::Optional,
    ]);
}
