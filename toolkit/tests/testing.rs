//! The test kit itself (`toolkit::testing`): its client calls through the real protocol on both
//! versions, collects each call's progress (at the end, or as it comes), acts as a caller, answers confirmations as told,
//! and returns a protocol error from `try_call`; `tools_list` is the list a client sees.

use serde_json::{Value, json};
use toolkit::testing::{Answer, ErrorKind, Protocol, TestClient};
use toolkit::{
    Caller, Confirm, ConfirmPolicy, Confirmations, Context, Handler, Run, Server, StateKeys, Tool,
    ToolError,
};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Counted {
    /// Who counted.
    by: Option<String>,
}

/// Counts to a number, reporting each step.
#[derive(Tool)]
#[tool(name = "count", title = "Count", output = Counted, scope = "count",
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Count {
    #[arg(min = 1, max = 5)]
    to: u64,
}

impl Run<()> for Count {
    async fn run(self, _: &(), context: &Context) -> Result<Counted, ToolError> {
        for done in 1..=self.to {
            context
                .progress(done, Some(self.to), format!("counted {done}"))
                .await;
        }
        let by = context.caller().map(|caller| caller.subject.clone());
        Ok(Counted { by })
    }
}

/// Forgets everything.
#[derive(Tool)]
#[tool(name = "forget", title = "Forget", output = Counted, confirm, scope = "count",
       read_only = false, destructive, idempotent, open_world = false)]
pub struct Forget {}

impl Confirm<()> for Forget {
    const DECLINED: &'static str = "nothing was forgotten.";

    async fn confirmation(&self, _: &(), _: &Context) -> Result<String, ToolError> {
        Ok("Forget everything?".to_owned())
    }
}

impl Run<()> for Forget {
    async fn run(self, _: &(), _: &Context) -> Result<Counted, ToolError> {
        Ok(Counted { by: None })
    }
}

fn server() -> Server<()> {
    Server::new("counter", "1.0.0")
        .tool::<Count>()
        .tool::<Forget>()
}

fn handler() -> Handler<()> {
    server().build(()).expect("the tools assemble")
}

const PROTOCOLS: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

#[tokio::test]
async fn a_call_returns_its_output_and_every_progress_report_in_order() {
    for protocol in PROTOCOLS {
        let client = TestClient::builder()
            .protocol(protocol)
            .connect(&handler())
            .await;
        let result = client.call("count", json!({ "to": 3 })).await;
        assert!(!result.is_error(), "{protocol:?}: {}", result.text());
        assert_eq!(result.error_kind(), None);
        assert_eq!(result.structured(), Some(&json!({ "by": null })));
        let reported: Vec<(f64, Option<f64>, Option<&str>)> = (result.progress().iter())
            .map(|step| (step.progress, step.total, step.message.as_deref()))
            .collect();
        // The first report and the last are always sent; those between may be held back.
        assert_eq!(reported.first(), Some(&(1.0, Some(3.0), Some("counted 1"))));
        assert_eq!(reported.last(), Some(&(3.0, Some(3.0), Some("counted 3"))));
        // Each call has its own.
        let again = client.call("count", json!({ "to": 1 })).await;
        assert_eq!(again.progress().len(), 1, "{protocol:?}");
    }
}

#[tokio::test]
async fn a_started_call_reports_its_progress_as_it_comes_then_answers() {
    let client = TestClient::connect(&handler()).await;
    let mut counting = client.start("count", json!({ "to": 2 }));
    let mut read = Vec::new();
    while let Some(step) = counting.next_progress().await {
        read.push(step.progress);
    }
    assert_eq!(read, [1.0, 2.0], "every report, then None once answered");
    assert_eq!(counting.progress().len(), 2);
    let result = counting.answer().await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.progress().len(), 2);
}

#[tokio::test]
async fn a_broken_rule_is_a_result_and_an_unknown_tool_a_protocol_error() {
    let client = TestClient::connect(&handler()).await;
    let result = client.call("count", json!({ "to": 9 })).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Validation));
    assert_eq!(
        result.text(),
        "Validation Failed: to: Must be between 1 and 5, not 9. Correct the arguments and call \
         the tool again."
    );
    assert!(client.try_call("nothing", Value::Null).await.is_err());
}

#[tokio::test]
async fn the_tools_see_the_caller_the_client_acts_as() {
    let ada = Caller::new("ada", vec!["count".to_owned()]);
    let client = TestClient::builder().caller(ada).connect(&handler()).await;
    let result = client.call("count", json!({ "to": 1 })).await;
    assert_eq!(result.structured(), Some(&json!({ "by": "ada" })));
}

#[tokio::test]
async fn the_user_answers_a_confirmation_as_told() {
    for protocol in PROTOCOLS {
        for (answer, error) in [
            (Answer::Accept, None),
            (Answer::Decline, Some(ErrorKind::Cancelled)),
            (Answer::Cancel, Some(ErrorKind::Cancelled)),
        ] {
            let client = TestClient::builder()
                .protocol(protocol)
                .answer(answer)
                .connect(&handler())
                .await;
            let result = client.call("forget", json!({})).await;
            assert_eq!(result.error_kind(), error, "{protocol:?} {answer:?}");
            assert_eq!(client.asked(), ["Forget everything?"]);
            if error.is_some() {
                assert_eq!(result.text(), "Cancelled: nothing was forgotten.");
            }
        }
    }
}

#[tokio::test]
async fn a_client_without_elicitation_meets_the_servers_policy() {
    for protocol in PROTOCOLS {
        for (policy, error) in [
            (ConfirmPolicy::Ask, None),
            (ConfirmPolicy::Require, Some(ErrorKind::Refused)),
        ] {
            let confirmations = Confirmations::new(policy, StateKeys::random());
            let handler =
                (server().confirmations(confirmations).build(())).expect("the tools assemble");
            let client = (TestClient::builder().protocol(protocol))
                .without_elicitation()
                .connect(&handler)
                .await;
            let result = client.call("forget", json!({})).await;
            assert_eq!(result.error_kind(), error, "{protocol:?} {policy:?}");
            assert!(client.asked().is_empty(), "no one was asked");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_token_names_the_caller_and_the_user_is_asked() {
    use toolkit::auth::StaticTokens;
    use toolkit::http::{self, HttpSettings};

    let minted = StaticTokens::mint("t_", &["count".to_owned()]).expect("a token");
    let tokens = StaticTokens::parse(&minted.entry, "the test").expect("the entry reads");
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let settings = HttpSettings::default().authenticate(tokens);
    let bound =
        (http::bind(loopback, settings, &server().declared()).await).expect("bind a loopback port");
    let url = bound.public_url().to_string();
    tokio::spawn(bound.serve(handler(), std::future::pending()));

    for answer in [Answer::Accept, Answer::Decline] {
        let client = (TestClient::builder().bearer(&minted.token).answer(answer))
            .connect_http(&url)
            .await;
        let counted = client.call("count", json!({ "to": 2 })).await;
        let by = counted.structured().expect("an output")["by"].clone();
        assert!(by.as_str().is_some_and(|by| !by.is_empty()), "{by}");
        assert_eq!(counted.progress().len(), 2, "progress comes over HTTP too");
        let forgot = client.call("forget", json!({})).await;
        assert_eq!(forgot.is_error(), answer == Answer::Decline, "{answer:?}");
        assert_eq!(client.asked(), ["Forget everything?"]);
        client.close().await;
    }
    let without_token = tokio::spawn(async move {
        TestClient::builder().connect_http(&url).await;
    });
    let refused = without_token
        .await
        .expect_err("a client without a token cannot connect");
    assert!(refused.is_panic());
}

#[tokio::test]
async fn tools_list_is_what_a_client_lists() {
    let client = TestClient::connect(&handler()).await;
    let listed = serde_json::to_value(client.list_tools().await).unwrap();
    let snapshot: Value = serde_json::from_str(&toolkit::testing::tools_list(&server())).unwrap();
    assert_eq!(listed, snapshot);
    assert_eq!(snapshot[0]["name"], "count");
    assert_eq!(snapshot[1]["name"], "forget");
}
