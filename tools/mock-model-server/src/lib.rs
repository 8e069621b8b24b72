//! A small OpenAI-compatible HTTP/1.1 server on loopback, speaking the real protocol:
//! `POST /v1/chat/completions` (SSE streaming), `POST /v1/audio/speech` (WAV) and
//! `POST /v1/audio/transcriptions` (JSON). Faults are chosen by the requested model name:
//!
//! | model | behaviour |
//! |---|---|
//! | anything else | streams a short reply that quotes the last message |
//! | `fault-429-once` | 429 with `Retry-After: 0` on the first call, then a normal reply |
//! | `fault-500` | always 500 |
//! | `fault-401` | 401 with an error body |
//! | `fault-hang` | accepts the request and never answers |
//! | `fault-slow-first` | sends headers, then waits 30 s before the first chunk |
//! | `fault-malformed` | one chunk, then an event that is not JSON |
//! | `fault-drop` | one chunk, then closes without `[DONE]` |
//! | `fault-empty` | `[DONE]` without any content |
//! | `fault-error-event` | an SSE event carrying an `error` object |
//! | `fault-keepalive` | SSE keep-alive comments every 100 ms, never a chunk |
//! | `fault-trickle` | one chunk every 500 ms, never an end |
//! | `fault-flood` | bytes without a line end, 64 KB at a time (up to 64 MB) |
//! | `fault-endless-error` | 400 with a body that never ends (up to 64 MB) |
//! | `fault-echo-key` | 401 whose message quotes the `Authorization` header back |
//! | `fault-echo-key-event` | an SSE `error` event quoting the `Authorization` header |
//!
//! `fault-echo-key` as the model of a speech or transcription request answers the same 401.
//!
//! The endless faults stop when the server is dropped or the client goes away.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// A running server; stops when dropped.
pub struct MockServer {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl MockServer {
    /// Starts on `127.0.0.1:port` (0: any free port).
    pub fn start(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let calls = Arc::new(Mutex::new(HashMap::<String, u32>::new()));
        {
            let requests = requests.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let requests = requests.clone();
                    let calls = calls.clone();
                    let stop = stop.clone();
                    std::thread::spawn(move || {
                        let _ = handle(stream, &requests, &calls, &stop);
                    });
                }
            });
        }
        Ok(Self {
            addr,
            requests,
            stop,
        })
    }

    /// `http://127.0.0.1:<port>/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn read_request(stream: &TcpStream) -> std::io::Result<Recorded> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len.min(16 << 20)];
    reader.read_exact(&mut body)?;
    Ok(Recorded {
        method,
        path,
        headers,
        body,
    })
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    extra: &str,
    body: &[u8],
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

fn sse_head(stream: &mut TcpStream) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    )?;
    stream.flush()
}

/// 401 with a message that quotes the request's `Authorization` header, as some services do.
fn echo_key(stream: &mut TcpStream, request: &Recorded) -> std::io::Result<()> {
    let message = format!(
        "Incorrect API key provided: {}",
        request
            .headers
            .get("authorization")
            .map_or("", String::as_str)
    );
    let body = json!({ "error": { "message": message } }).to_string();
    respond(
        stream,
        "401 Unauthorized",
        "application/json",
        "",
        body.as_bytes(),
    )
}

/// `x` without a line end, 64 KB at a time, until 64 MB, a stop or a closed connection.
fn flood(stream: &mut TcpStream, stop: &AtomicBool) -> std::io::Result<()> {
    let block = vec![b'x'; 64 * 1024];
    for _ in 0..1024 {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        stream.write_all(&block)?;
    }
    stream.flush()
}

fn sse_chunk(stream: &mut TcpStream, content: &str) -> std::io::Result<()> {
    let event = json!({ "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": { "content": content }, "finish_reason": null }] });
    write!(stream, "data: {event}\n\n")?;
    stream.flush()
}

fn handle(
    mut stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    calls: &Mutex<HashMap<String, u32>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let request = read_request(&stream)?;
    requests.lock().expect("lock").push(request.clone());
    match request.path.as_str() {
        "/v1/chat/completions" => chat(&mut stream, &request, calls, stop),
        // Speech and transcription services that quote the key back (model `fault-echo-key`;
        // a transcription names its model in a multipart field).
        "/v1/audio/speech" | "/v1/audio/transcriptions"
            if request
                .body
                .windows(b"fault-echo-key".len())
                .any(|w| w == b"fault-echo-key") =>
        {
            echo_key(&mut stream, &request)
        }
        "/v1/audio/speech" => {
            let input = request.json()["input"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let rate = 24_000;
            let len = (input.chars().count().max(1) * rate as usize) / 20; // 50 ms per character
            let samples = (0..len).map(|i| ((i as f32) * 0.06).sin() * 0.2).collect();
            let wav = audio_utils::encode_wav(&audio_utils::Pcm {
                sample_rate: rate,
                samples,
            });
            respond(&mut stream, "200 OK", "audio/wav", "", &wav)
        }
        "/v1/audio/transcriptions" => {
            let body = json!({ "text": "can you give me an example with numbers" }).to_string();
            respond(
                &mut stream,
                "200 OK",
                "application/json",
                "",
                body.as_bytes(),
            )
        }
        _ => respond(
            &mut stream,
            "404 Not Found",
            "application/json",
            "",
            br#"{"error":{"message":"not found"}}"#,
        ),
    }
}

fn chat(
    stream: &mut TcpStream,
    request: &Recorded,
    calls: &Mutex<HashMap<String, u32>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let body = request.json();
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let call = {
        let mut calls = calls.lock().expect("lock");
        let n = calls.entry(model.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let wait = |secs: u64| {
        for _ in 0..secs * 10 {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    match model.as_str() {
        "fault-429-once" if call == 1 => respond(
            stream,
            "429 Too Many Requests",
            "application/json",
            "Retry-After: 0\r\n",
            br#"{"error":{"message":"rate limited"}}"#,
        ),
        "fault-500" => respond(
            stream,
            "500 Internal Server Error",
            "application/json",
            "",
            br#"{"error":{"message":"boom"}}"#,
        ),
        "fault-401" => respond(
            stream,
            "401 Unauthorized",
            "application/json",
            "",
            br#"{"error":{"message":"invalid api key"}}"#,
        ),
        "fault-hang" => {
            wait(60);
            Ok(())
        }
        "fault-slow-first" => {
            sse_head(stream)?;
            wait(30);
            Ok(())
        }
        "fault-malformed" => {
            sse_head(stream)?;
            sse_chunk(stream, "Partly ")?;
            stream.write_all(b"data: {this is not json\n\n")?;
            stream.flush()
        }
        "fault-drop" => {
            sse_head(stream)?;
            sse_chunk(stream, "Cut ")?;
            sse_chunk(stream, "off ")?;
            Ok(()) // closes without [DONE]
        }
        "fault-empty" => {
            sse_head(stream)?;
            stream.write_all(b"data: [DONE]\n\n")?;
            stream.flush()
        }
        "fault-keepalive" => {
            sse_head(stream)?;
            for _ in 0..600 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                stream.write_all(b": keep-alive\n\n")?;
                stream.flush()?;
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(())
        }
        "fault-trickle" => {
            sse_head(stream)?;
            for _ in 0..120 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                sse_chunk(stream, "slow ")?;
                std::thread::sleep(Duration::from_millis(500));
            }
            Ok(())
        }
        "fault-flood" => {
            sse_head(stream)?;
            stream.write_all(b"data: ")?;
            flood(stream, stop)
        }
        "fault-endless-error" => {
            write!(
                stream,
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{{\"error\":{{\"message\":\""
            )?;
            flood(stream, stop)
        }
        "fault-echo-key" => echo_key(stream, request),
        "fault-echo-key-event" => {
            sse_head(stream)?;
            let message = format!(
                "key {} is over its quota",
                request
                    .headers
                    .get("authorization")
                    .map_or("", String::as_str)
            );
            let event = json!({ "error": { "message": message } });
            write!(stream, "data: {event}\n\n")?;
            stream.flush()
        }
        // A model that repeats the last line it was shown, word for word, on its first
        // call, and says something of its own after.
        "parrot-once" => {
            let reply = if call == 1 {
                last_line(&body)
                    .split_once("]: ")
                    .map_or(last_line(&body), |(_, text)| text)
                    .to_owned()
            } else {
                "Picture walking toward a wall: you get as close as you like and never touch it."
                    .to_owned()
            };
            stream_reply(stream, &reply)
        }
        "fault-error-event" => {
            sse_head(stream)?;
            stream.write_all(b"data: {\"error\":{\"message\":\"overloaded\"}}\n\n")?;
            stream.flush()
        }
        _ => {
            let reply = format!(
                "You said: {}. That is worth discussing. ",
                last_line(&body).chars().take(60).collect::<String>()
            );
            stream_reply(stream, &reply)
        }
    }
}

/// The last line somebody said (a user message); the system messages around it are
/// directions, which an echo would only recite. A side request has no line of anyone's:
/// its own message is echoed.
fn last_line(body: &Value) -> &str {
    let messages = body["messages"].as_array();
    messages
        .and_then(|m| {
            m.iter()
                .rev()
                .find(|m| m["role"] == "user")
                .or_else(|| m.last())
        })
        .and_then(|m| m["content"].as_str())
        .unwrap_or("nothing")
}

/// `reply` streamed word by word, then its finish reason and `[DONE]`.
fn stream_reply(stream: &mut TcpStream, reply: &str) -> std::io::Result<()> {
    sse_head(stream)?;
    for word in reply.split_inclusive(' ') {
        sse_chunk(stream, word)?;
        std::thread::sleep(Duration::from_millis(5));
    }
    let finish = json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] });
    write!(stream, "data: {finish}\n\ndata: [DONE]\n\n")?;
    stream.flush()
}
