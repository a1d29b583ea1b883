//! What the loader itself costs per call: it loads an endpoint that answers every request at
//! once with the same bytes (a tool's answer of a typical size), served on a thread of its own,
//! and the loader's thread's CPU time is divided by the calls made. The figure to subtract in
//! one's head from a machine shared by the loader and the server.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;

use crate::Error;
use crate::http::loader::{self, Endpoint, Length, Prepared, Protocol};
use crate::report::{cpu_spent, per_call, thread_cpu_time};

/// What the loader cost against the canned endpoint.
pub(crate) struct LoaderCost {
    pub(crate) connections: usize,
    pub(crate) calls: usize,
    pub(crate) calls_per_second: f64,
    pub(crate) cpu_per_call: Option<Duration>,
}

/// Loads a canned endpoint with `requests` over `connections` connections.
pub(crate) fn measure(
    requests: Arc<[Prepared]>,
    connections: usize,
    protocol: Protocol,
) -> Result<LoaderCost, Error> {
    let address = serve_canned()?;
    let endpoint = Endpoint {
        address,
        authority: address.to_string(),
        path: "/mcp".to_owned(),
        token: Some("canned".to_owned()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let before = thread_cpu_time();
    let loaded = runtime.block_on(loader::load(
        &[endpoint],
        protocol,
        Arc::clone(&requests),
        connections,
        Length::Once,
        |_, answer| answer,
    ))?;
    let cpu = cpu_spent(before, thread_cpu_time());
    if let Some(failed) = loaded.answers.iter().find(|timed| timed.answer.is_err()) {
        return Err(format!(
            "the canned endpoint failed: {:?}",
            failed.answer.as_ref().err()
        )
        .into());
    }
    let calls = loaded.answers.len();
    Ok(LoaderCost {
        connections,
        calls,
        calls_per_second: calls as f64 / loaded.elapsed.as_secs_f64(),
        cpu_per_call: per_call(cpu, calls),
    })
}

/// Starts the canned endpoint on a thread of its own and returns its address.
fn serve_canned() -> Result<SocketAddr, Error> {
    let (bound, address) = mpsc::channel();
    thread::spawn(move || {
        let served = (|| -> Result<(), Error> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await?;
                let _ = bound.send(listener.local_addr());
                let answer = canned_answer();
                loop {
                    let (stream, _) = listener.accept().await?;
                    stream.set_nodelay(true)?;
                    let answer = answer.clone();
                    tokio::spawn(async move {
                        let service = service_fn(move |_: Request<Incoming>| {
                            let answer = answer.clone();
                            async move {
                                let mut response = Response::new(Full::new(answer));
                                response.headers_mut().insert(
                                    CONTENT_TYPE,
                                    HeaderValue::from_static("application/json"),
                                );
                                Ok::<_, Infallible>(response)
                            }
                        });
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            })
        })();
        if let Err(error) = served {
            eprintln!("bench: the canned endpoint stopped: {error}");
        }
    });
    Ok(address
        .recv_timeout(Duration::from_secs(10))
        .map_err(|_| "the canned endpoint did not start")??)
}

/// A `movies_get` answer of about 1 KB: a movie and a few reviews.
fn canned_answer() -> Bytes {
    let review = json!({
        "id": "0193a5e2-7c41-7000-8000-000000000001",
        "authorId": "0193a5e2-7c41-7000-8000-000000000002",
        "authorName": "Ada Lovelace",
        "stars": 4,
        "createdAt": "2026-12-07T10:00:00Z",
    });
    let movie = json!({
        "id": "0193a5e2-7c41-7000-8000-000000000003",
        "title": "The Benchmark",
        "averageStars": 4.0,
        "reviewCount": 3,
        "reviews": [review, review, review],
    });
    let result = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{ "type": "text", "text": movie.to_string() }],
            "structuredContent": movie,
            "isError": false,
        },
    });
    Bytes::from(result.to_string())
}
