//! The client against loopback servers: a tiny one per test for exact bytes on the wire,
//! and the mock model server for the chat protocol's faults.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::mpsc,
    time::Duration,
};

use mock_model_server::MockServer;
use serde_json::json;
use service_client::{
    BlockingClient, ChatClient, MAX_ERROR_BODY_BYTES, ServiceError, ServiceSettings, StreamLimits,
};

const KEY: &str = "sk-loopback-secret-4711";

/// A server that answers each connection with `answer`, given the request's head; the
/// heads it saw come out of the receiver.
fn serve(
    answer: impl Fn(&mut TcpStream, &str) + Send + 'static,
) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let head = read_request(&stream);
            let _ = tx.send(head.clone());
            answer(&mut stream, &head);
        }
    });
    (base, rx)
}

/// The request's head, its body read and dropped.
fn read_request(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<u64>().unwrap_or(0))
        })
        .unwrap_or(0);
    let _ = std::io::copy(&mut reader.by_ref().take(length), &mut std::io::sink());
    head
}

fn settings(base_url: &str) -> ServiceSettings {
    ServiceSettings {
        service: "speech service",
        base_url: base_url.to_owned(),
        api_key: Some(KEY.to_owned()),
        key_env: "TEST_KEY".to_owned(),
        model: None,
    }
}

fn blocking(base_url: &str, timeout: Duration) -> BlockingClient {
    BlockingClient::new(settings(base_url), timeout).unwrap()
}

fn chat(base_url: &str, max_retries: u32) -> ChatClient {
    let limits = StreamLimits {
        first_token: Duration::from_secs(1),
        stall: Duration::from_secs(1),
        max_retries,
    };
    let settings = ServiceSettings {
        service: "model service",
        ..settings(base_url)
    };
    ChatClient::new(settings, Duration::from_secs(1), limits).unwrap()
}

/// The chat answer to a request for `model`: the text streamed, or the error.
fn stream(client: &ChatClient, model: &str) -> (String, Result<(), ServiceError>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body =
        json!({"model": model, "stream": true, "messages": [{"role": "user", "content": "Hi"}]});
    let mut text = String::new();
    let result = runtime.block_on(client.stream(&body, |piece| {
        text.push_str(&piece);
        std::ops::ControlFlow::Continue(())
    }));
    (text, result)
}

#[test]
fn a_json_post_sends_the_key_and_returns_the_body() {
    let (base, heads) = serve(|stream, _| {
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nRIFF");
    });
    let body = blocking(&base, Duration::from_secs(5))
        .post_json("audio/speech", &json!({"input": "Hello"}))
        .unwrap();
    assert_eq!(body, b"RIFF");
    let head = heads.recv().unwrap();
    assert!(head.starts_with("POST /v1/audio/speech "), "{head}");
    assert!(head.contains(&format!("Bearer {KEY}")), "{head}");
}

/// An error answer whose body never ends: the message quotes its start, and the client
/// hangs up after its bound instead of reading on.
#[test]
fn an_error_body_is_read_to_its_bound_only() {
    const BLOCKS: usize = 1024;
    let (written_tx, written) = mpsc::channel();
    let (base, _) = serve(move |stream, _| {
        let _ = stream.write_all(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n",
        );
        let block = vec![b'x'; 64 * 1024];
        // Up to 64 MB, or until the client goes away.
        let mut sent = 0;
        while sent < BLOCKS && stream.write_all(&block).is_ok() {
            sent += 1;
        }
        let _ = written_tx.send(sent);
    });
    let error = blocking(&base, Duration::from_secs(30))
        .post_json("audio/speech", &json!({}))
        .unwrap_err();
    // What the socket buffers held is all the server could write once the client left.
    let sent = written
        .recv_timeout(Duration::from_secs(60))
        .expect("the server finished writing");
    assert!(sent < BLOCKS, "the client read all {sent} blocks");
    let message = error.to_string();
    assert!(
        message.starts_with("the speech service answered HTTP 400"),
        "{message}"
    );
    assert!(
        message.len() < MAX_ERROR_BODY_BYTES,
        "{} bytes",
        message.len()
    );
}

/// A service that quotes the key back, and a base URL with credentials: no error names
/// either.
#[test]
fn the_key_and_url_credentials_never_reach_an_error() {
    let (base, _) = serve(|stream, head| {
        let auth = head
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
            .unwrap_or_default();
        let body = json!({"error": {"message": format!("Incorrect API key provided: {auth}")}})
            .to_string();
        let _ = write!(
            stream,
            "HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let error = blocking(&base, Duration::from_secs(5))
        .post_json("audio/speech", &json!({}))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("HTTP 401") && error.contains("***"),
        "{error}"
    );
    assert!(!error.contains(KEY), "{error}");

    // Nobody listens on this port: the error names the URL, without its credentials.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://user:url-secret-99@127.0.0.1:{port}/v1?key=query-secret-98");
    let error = blocking(&base, Duration::from_secs(5))
        .post_json("audio/speech", &json!({}))
        .unwrap_err()
        .to_string();
    assert!(error.contains("cannot reach the speech service"), "{error}");
    for secret in [KEY, "url-secret-99", "query-secret-98"] {
        assert!(!error.contains(secret), "{secret} in {error}");
    }
}

/// A service that accepts and never answers: an error at the deadline, not a hang.
#[test]
fn a_silent_service_times_out() {
    let (base, _) = serve(|_, _| std::thread::sleep(Duration::from_secs(30)));
    let error = blocking(&base, Duration::from_millis(300))
        .post_json("audio/speech", &json!({}))
        .unwrap_err();
    assert!(matches!(error, ServiceError::Unreachable { .. }), "{error}");
    // The deadline, not the server's closing 30 s later, ended the call.
    assert!(error.to_string().contains("timed out"), "{error}");

    let server = MockServer::start(0).unwrap();
    let (_, result) = stream(&chat(&server.base_url(), 0), "fault-hang");
    assert!(
        result
            .unwrap_err()
            .to_string()
            .starts_with("no answer from")
    );
    let (text, result) = stream(&chat(&server.base_url(), 0), "fault-slow-first");
    assert_eq!(text, "");
    assert_eq!(result.unwrap_err().to_string(), "no first token within 1s");
}

/// Events split anywhere across reads, `\r\n` line ends, comments, a finish reason and
/// `[DONE]`: the content comes out whole and in order.
#[test]
fn sse_chunks_split_across_reads_are_parsed() {
    let (base, _) = serve(|stream, _| {
        let events = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo, \"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"world.\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
        );
        for piece in events.as_bytes().chunks(7) {
            let _ = stream.write_all(piece);
            let _ = stream.flush();
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let (text, result) = stream(&chat(&base, 0), "any");
    result.unwrap();
    assert_eq!(text, "Hello, world.");
}

#[test]
fn the_chat_streams_faults_become_errors() {
    let server = MockServer::start(0).unwrap();
    let (text, result) = stream(&chat(&server.base_url(), 2), "fault-429-once");
    result.unwrap();
    assert!(text.starts_with("You said: Hi."), "{text}");
    assert_eq!(server.requests().len(), 2, "one retry");

    for (model, error) in [
        (
            "fault-500",
            "the model service answered HTTP 500 Internal Server Error: boom",
        ),
        ("fault-malformed", "malformed SSE event"),
        ("fault-drop", "the stream was dropped before it ended"),
        (
            "fault-error-event",
            "the model service reported an error: overloaded",
        ),
        ("fault-flood", "longer than"),
        ("fault-endless-error", "HTTP 400"),
        ("fault-echo-key", "Incorrect API key provided: Bearer ***"),
        ("fault-echo-key-event", "key Bearer *** is over its quota"),
    ] {
        let (_, result) = stream(&chat(&server.base_url(), 0), model);
        let message = result.unwrap_err().to_string();
        assert!(message.contains(error), "{model}: {message}");
        assert!(!message.contains(KEY), "{model}: {message}");
        assert!(message.len() < 2_000, "{model}: {} bytes", message.len());
    }
}
