//! Formats: a URI, a URL, a date and timestamps by the field's type, and `format = "email"` on
//! a string and on each string of a list.
use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use fluent_uri::Uri;
use serde_json::json;
use toolkit::Tool;
use url::Url;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Formats.
#[derive(Tool)]
#[tool(name = "formats", title = "Formats", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Formats {
    pub page: Url,
    pub id: Option<Uri<String>>,
    pub due: NaiveDate,
    pub at: DateTime<Utc>,
    pub local: Option<DateTime<FixedOffset>>,
    #[arg(format = "email")]
    pub to: String,
    #[arg(max_items = 3, each(format = "email"))]
    pub cc: Vec<String>,
}

fn main() {
    let schema = toolkit::input_schema(Formats::SPEC);
    let properties = &schema["properties"];
    assert_eq!(properties["page"], json!({ "type": "string", "format": "uri" }));
    assert_eq!(properties["id"], json!({ "type": "string", "format": "uri" }));
    assert_eq!(properties["due"], json!({ "type": "string", "format": "date" }));
    assert_eq!(properties["at"], json!({ "type": "string", "format": "date-time" }));
    assert_eq!(properties["to"], json!({ "type": "string", "format": "email" }));
    assert_eq!(properties["cc"]["items"], json!({ "type": "string", "format": "email" }));

    let accepted = json!({
        "page": "https://example.com/a?b=1", "id": "urn:isbn:0451450523", "due": "2024-02-29", "at": "2024-05-31T14:30:00+02:00",
        "to": "ada@example.com", "cc": [],
    });
    let formats: Formats = toolkit::parse(accepted.as_object()).unwrap();
    assert_eq!(formats.page.host_str(), Some("example.com"));
    assert_eq!(formats.id.unwrap().scheme().as_str(), "urn");
    assert_eq!(formats.due, NaiveDate::from_ymd_opt(2024, 2, 29).unwrap());
    assert_eq!(formats.at.to_rfc3339(), "2024-05-31T12:30:00+00:00");

    let refused = json!({
        "page": "example.com", "id": "http://a/b#c#d", "due": "2023-02-29", "at": "2024-05-31 14:30:00Z",
        "local": 5, "to": "Ada <ada@example.com>", "cc": ["x"],
    });
    assert_eq!(
        toolkit::parse::<Formats>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         page: Must be an absolute URI, like https://example.com/page, not \"example.com\". \
         id: Must be an absolute URI, like https://example.com/page, not \"http://a/b#c#d\". \
         due: Must be a date in the form 2024-05-31, not \"2023-02-29\". \
         at: Must be a date and time with its offset, in the form 2024-05-31T14:30:00Z (RFC 3339), not \"2024-05-31 14:30:00Z\". \
         local: Must be a date and time with its offset, in the form 2024-05-31T14:30:00Z (RFC 3339), not a number. \
         to: Must be an email address, like ada@example.com, not \"Ada <ada@example.com>\". \
         cc[0]: Must be an email address, like ada@example.com, not \"x\". \
         Correct the arguments and call the tool again."
    );
}
