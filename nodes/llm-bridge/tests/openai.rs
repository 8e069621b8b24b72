//! The `openai` backend against a loopback OpenAI-compatible server, faults included.

use std::{path::Path, time::Duration};

use mock_model_server::MockServer;
use node_kit::testing::{NodeRun, TestEvent, input, keepalive, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_llm-bridge");
const SECRET: &str = "sk-test-secret-value-123";

/// One turn for `tutor` against `base_url` with `model`; the run lasts `secs`.
fn turn_against(base_url: &str, model: &str, secs: f64) -> NodeRun {
    let mut events = vec![
        input(
            0.01,
            "utterance",
            json!(["What is a limit?"]),
            meta(&[("speaker", json!("student1")), ("question_id", json!(1))]),
        ),
        input(
            0.02,
            "turn",
            json!(["tutor"]),
            meta(&[("question_id", json!(2))]),
        ),
    ];
    events.extend(keepalive(0.03, secs));
    events.push(stop(secs + 0.1));
    run_against(base_url, model, &[("LLM_MAX_RETRIES", "2")], events)
}

/// The bridge as a tutor on `base_url` with `model`, fast timeouts, the key in env.
fn run_against(
    base_url: &str,
    model: &str,
    extra: &[(&str, &str)],
    events: Vec<TestEvent>,
) -> NodeRun {
    let persona = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../templates/tutor/persona.md"
    );
    let mut env = vec![
        ("PERSONA", persona),
        ("LLM_BACKEND", "openai"),
        ("LLM_BASE_URL", base_url),
        ("LLM_MODEL", model),
        ("LLM_API_KEY_ENV", "TEST_LLM_KEY"),
        ("TEST_LLM_KEY", SECRET),
        ("LLM_FIRST_TOKEN_TIMEOUT_SECS", "1"),
        ("LLM_STALL_TIMEOUT_SECS", "1"),
    ];
    env.extend_from_slice(extra);
    run_node(Path::new(BIN), &env, events, Duration::from_secs(60))
}

fn assert_ended_with_error(run: &NodeRun, error: &str) {
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("text").last().map(String::as_str),
        Some(""),
        "an `ended` chunk closes the turn: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("generation failed") && run.stderr.contains(error),
        "expected {error:?} in:\n{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains(SECRET),
        "the API key leaked into the log"
    );
}

#[test]
fn streams_a_reply_with_attribution_and_the_key() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "echo", 1.5);
    assert!(run.success, "{}", run.stderr);
    let chunks = run.texts_of("text");
    // The reply's echo of the question is not said (the reply policy's guard).
    assert_eq!(chunks.concat(), "That is worth discussing. ");
    assert_eq!(chunks.last().unwrap(), "");
    let request = &server.requests()[0];
    assert_eq!(request.headers["authorization"], format!("Bearer {SECRET}"));
    let body = request.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "echo");
    assert_eq!(body["messages"][0]["role"], "system");
    // The student is named as the persona templates call him; the turn closes with the
    // director's instruction.
    assert_eq!(body["messages"][1]["content"], "[Ben]: What is a limit?");
    let messages = body["messages"].as_array().unwrap();
    let direction = messages.last().unwrap();
    assert_eq!(direction["role"], "system");
    assert!(
        direction["content"]
            .as_str()
            .unwrap()
            .starts_with("For this turn: Ben just said: “What is a limit?”"),
        "{direction}"
    );
    assert!(!run.stderr.contains(SECRET));
}

#[test]
fn rate_limit_is_retried() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-429-once", 2.5);
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.texts_of("text").concat() == "That is worth discussing. ",
        "{}",
        run.stderr
    );
    assert_eq!(server.requests().len(), 2);
    assert!(run.stderr.contains("retrying"));
}

#[test]
fn server_errors_are_retried_then_reported() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-500", 4.5);
    assert_ended_with_error(&run, "HTTP 500");
    assert_eq!(server.requests().len(), 3, "one try and two retries");
}

#[test]
fn unauthorized_is_not_retried() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-401", 1.0);
    assert_ended_with_error(&run, "invalid api key");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn connection_refused() {
    // Bind and drop to find a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = turn_against(&format!("http://127.0.0.1:{port}/v1"), "echo", 4.5);
    assert_ended_with_error(&run, "cannot reach the model service");
}

#[test]
fn a_hanging_service_times_out() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-hang", 2.0);
    assert_ended_with_error(&run, "no answer");
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-slow-first", 2.0);
    assert_ended_with_error(&run, "no first token");
}

#[test]
fn broken_streams_end_the_turn_with_an_error() {
    let server = MockServer::start(0).unwrap();
    for (model, error) in [
        ("fault-malformed", "malformed SSE event"),
        ("fault-drop", "dropped before it ended"),
        ("fault-empty", "empty answer"),
        ("fault-error-event", "overloaded"),
    ] {
        let run = turn_against(&server.base_url(), model, 1.0);
        assert_ended_with_error(&run, error);
    }
}

/// A side request against the service, answered (or failed) on `reply`.
fn ask_against(base_url: &str, model: &str) -> NodeRun {
    let body = json!({"id": "b1", "kind": "bid", "prompt": "Your bid?", "json": true});
    let mut events = vec![input(0.01, "request", json!([body.to_string()]), meta(&[]))];
    events.extend(keepalive(0.02, 2.5));
    events.push(stop(2.6));
    let extra = [("LLM_MAX_RETRIES", "0"), ("REQUEST_TIMEOUT_SECS", "2")];
    run_against(base_url, model, &extra, events)
}

#[test]
fn side_requests_use_the_service_and_report_faults() {
    let server = MockServer::start(0).unwrap();
    let run = ask_against(&server.base_url(), "echo");
    assert!(run.success, "{}", run.stderr);
    let reply = run.texts_of("reply");
    assert_eq!(reply.len(), 1, "{}", run.stderr);
    assert!(reply[0].contains("JSON"), "{reply:?}");
    let sent = server.requests()[0].json();
    assert_eq!(
        sent["messages"].as_array().unwrap().last().unwrap()["role"],
        "system"
    );

    for model in ["fault-hang", "fault-500", "fault-malformed"] {
        let run = ask_against(&server.base_url(), model);
        assert!(run.success, "{model}: {}", run.stderr);
        assert_eq!(
            run.texts_of("reply"),
            vec![String::new()],
            "{model}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("side request not answered"),
            "{model}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains(SECRET));
    }
}

/// Whatever keeps a stream open (keep-alives, a trickle of tokens), the turn ends at its
/// deadline with an `ended` chunk and an error.
#[test]
fn a_turn_has_a_deadline_whatever_the_stream_does() {
    let server = MockServer::start(0).unwrap();
    for model in ["fault-keepalive", "fault-trickle"] {
        let mut events = vec![input(
            0.01,
            "turn",
            json!(["tutor"]),
            meta(&[("question_id", json!(2))]),
        )];
        events.extend(keepalive(0.02, 4.0));
        events.push(stop(4.1));
        let extra = [("LLM_TURN_TIMEOUT_SECS", "2"), ("LLM_MAX_RETRIES", "0")];
        let run = run_against(&server.base_url(), model, &extra, events);
        assert_ended_with_error(&run, "did not end within");
        // A sentence that never ends is never said (the reply policy holds a sentence
        // until its end, as for the embedded model).
        assert_eq!(run.texts_of("text").concat(), "", "{}", run.stderr);
    }
}

/// A stream without line ends and an error body without an end are cut off, not read
/// into memory for ever.
#[test]
fn floods_are_refused() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "fault-flood", 2.0);
    assert_ended_with_error(&run, "longer than");
    let run = turn_against(&server.base_url(), "fault-endless-error", 2.5);
    assert_ended_with_error(&run, "HTTP 400");
    // The message quotes the start of the body only.
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains("HTTP 400"))
        .unwrap_or_default();
    assert!(line.len() < 2_000, "{} bytes", line.len());
}

/// A service that quotes the key back, in an error body or an SSE error event, and a key
/// inside the base URL: neither reaches the log nor the `ended` chunk's `error`.
#[test]
fn keys_quoted_by_the_service_are_redacted() {
    let server = MockServer::start(0).unwrap();
    for (model, error) in [
        ("fault-echo-key", "Incorrect API key provided: Bearer ***"),
        ("fault-echo-key-event", "key Bearer *** is over its quota"),
    ] {
        let run = turn_against(&server.base_url(), model, 1.0);
        assert_ended_with_error(&run, error);
        let outputs = serde_json::to_string(&run.outputs).unwrap();
        assert!(!outputs.contains(SECRET), "{outputs}");
    }

    const URL_SECRET: &str = "url-password-4242";
    const QUERY_SECRET: &str = "query-key-9191";
    let base = format!(
        "http://user:{URL_SECRET}@{}/v1?key={QUERY_SECRET}",
        server.addr
    );
    let run = turn_against(&base, "fault-echo-key", 1.0);
    let outputs = serde_json::to_string(&run.outputs).unwrap();
    assert!(run.success, "{}", run.stderr);
    assert!(run.stderr.contains("generation failed"), "{}", run.stderr);
    for secret in [SECRET, URL_SECRET, QUERY_SECRET] {
        assert!(!run.stderr.contains(secret), "{secret} in {}", run.stderr);
        assert!(!outputs.contains(secret), "{secret} in {outputs}");
    }
}

#[test]
fn a_services_echo_is_not_said_and_the_turn_is_asked_for_again_warmer() {
    let server = MockServer::start(0).unwrap();
    let run = turn_against(&server.base_url(), "parrot-once", 3.0);
    assert!(run.success, "{}", run.stderr);
    let said = run.texts_of("text").concat();
    assert!(
        !said.contains("What is a limit?"),
        "the echo was said: {said:?}"
    );
    assert!(
        said.contains("Picture walking toward a wall"),
        "{said:?}\n{}",
        run.stderr
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "one more request after the refused one");
    let temperature = |i: usize| requests[i].json()["temperature"].as_f64().unwrap();
    assert!(temperature(1) > temperature(0));
}
