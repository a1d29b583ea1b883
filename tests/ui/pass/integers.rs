//! Integer arguments of every width, with either bound, both, neither, negative bounds and
//! defaults; undeclared bounds are the type's own, a 64-bit type's narrowed to ±(2^53 − 1).
use toolkit::rule::{Bound, Number, Range};
use toolkit::{Literal, Presence, Tool};

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
    pub count: usize,
}

fn main() {
    use serde_json::json;

    let safe = toolkit::arg::MAX_SAFE_INTEGER;
    let schema = toolkit::input_schema(Integers::SPEC);
    let bounds: Vec<(serde_json::Value, serde_json::Value)> = Integers::SPEC
        .args
        .iter()
        .map(|arg| {
            let property = &schema["properties"][arg.name];
            assert_eq!(property["type"], "integer");
            (property["minimum"].clone(), property["maximum"].clone())
        })
        .collect();
    assert_eq!(bounds, [
        (json!(0), json!(u32::MAX)),
        (json!(1), json!(50)),
        (json!(-10), json!(-1)),
        (json!(-safe), json!(100)),
        (json!(-safe), json!(safe)),
        (json!(0), json!(u32::MAX)),
        (json!(i8::MIN), json!(i8::MAX)),
        (json!(-1000), json!(i16::MAX)),
        (json!(0), json!(200)),
        (json!(0), json!(u16::MAX)),
        (json!(0), json!(safe)),
    ]);
    let declared: Vec<Option<&Range>> = Integers::SPEC.args.iter().map(|arg| arg.rule::<Range>()).collect();
    let whole = |value| Some(Bound { value: Number::Whole(value), exclusive: false });
    assert_eq!(declared[0], Some(&Range { min: whole(0), max: None }));
    assert_eq!(declared[1], Some(&Range { min: whole(1), max: whole(50) }));
    assert_eq!(declared[4], None);
    let presence: Vec<Presence> = Integers::SPEC.args.iter().map(|arg| arg.presence).collect();
    assert_eq!(presence, [
        Presence::Default(Literal::Integer(0)),
        Presence::Default(Literal::Integer(10)),
        Presence::Required,
        Presence::Required,
        Presence::Required,
        Presence::Optional,
        Presence::Required,
        Presence::Required,
        Presence::Default(Literal::Integer(5)),
        Presence::Optional,
        Presence::Required,
    ]);
}
