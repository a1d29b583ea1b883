//! Float arguments: `f64` and `f32`, inclusive and exclusive bounds on either side, whole and
//! fractional bounds and defaults, and an optional float.
use serde_json::json;
use toolkit::{Literal, Presence, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Floats.
#[derive(Tool)]
#[tool(name = "floats", title = "Floats", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Floats {
    #[arg(exclusive_min = 0, max = 600, default = 30)]
    pub timeout: f64,
    #[arg(min = -90.0, max = 90.0)]
    pub latitude: f64,
    #[arg(min = 0, exclusive_max = 1)]
    pub ratio: f32,
    #[arg(exclusive_min = -1.5e3, default = 0.25)]
    pub offset: f64,
    pub anything: f64,
    pub scale: Option<f32>,
}

fn main() {
    let schema = toolkit::input_schema(Floats::SPEC);
    let properties = &schema["properties"];
    assert_eq!(properties["timeout"], json!({
        "type": "number", "exclusiveMinimum": 0, "maximum": 600, "default": 30
    }));
    assert_eq!(properties["latitude"], json!({ "type": "number", "minimum": -90.0, "maximum": 90.0 }));
    assert_eq!(properties["ratio"], json!({
        "type": "number", "minimum": 0, "maximum": f64::from(f32::MAX), "exclusiveMaximum": 1
    }));
    assert_eq!(properties["offset"], json!({
        "type": "number", "exclusiveMinimum": -1500.0, "default": 0.25
    }));
    assert_eq!(properties["anything"], json!({ "type": "number" }));
    assert_eq!(properties["scale"], json!({
        "type": "number", "minimum": -f64::from(f32::MAX), "maximum": f64::from(f32::MAX)
    }));
    let presence: Vec<Presence> = Floats::SPEC.args.iter().map(|arg| arg.presence).collect();
    assert_eq!(presence[0], Presence::Default(Literal::Integer(30)));
    assert_eq!(presence[3], Presence::Default(Literal::Float(0.25)));

    let arguments = json!({ "latitude": 45, "ratio": 0.5, "anything": -1e300 });
    let floats: Floats = toolkit::parse(arguments.as_object()).unwrap();
    assert_eq!((floats.timeout, floats.latitude, floats.ratio), (30.0, 45.0, 0.5));
    assert_eq!((floats.offset, floats.anything, floats.scale), (0.25, -1e300, None));
}
