//! A sentinel API key never leaves the process that uses it: the spoken study session runs
//! with every model behind the loopback mock server (`tools/mock-model-server`), whose
//! fault modes quote the `Authorization` header back (a 401 body, an SSE `error` event),
//! and then the whole session folder (decisions/ and context/ included), everything
//! `dora run` printed, its log files and everything the console sent to a page are
//! searched for the key: not one hit.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant, SystemTime},
};

use e2e_tests::{
    build_workspace, dora, free_port, make_writable, outside_cargo_test, repo_root, serial,
    session_dir,
};
use serde_yaml::Value;

/// The part of the key that is searched for: unique, and in no other text of the project.
const MARK: &str = "S3ntinelK3y";

/// Kills the child it holds when dropped, whichever way the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The mock server's binary (built with the workspace) on a free port; its base URL.
fn mock_server() -> (Running, String) {
    let mut child = Command::new(repo_root().join("target/release/mock-model-server"))
        .args(["--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mock-model-server starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the mock server prints its URL");
    (Running(child), url.trim().to_owned())
}

/// voice-chat.yml with every model behind `base_url`: the tutor's service sends an SSE
/// `error` event quoting the key, student1's answers, student2's answers 401 quoting the
/// key; speech and transcription answer 401 quoting it. (The tutor speaks after everyone,
/// student1 once, then the silent student2 has the smallest share every time.) Written
/// next to the shipped dataflows (their relative paths hold), hidden by its leading dot.
fn dataflow(base_url: &str, console_port: u16) -> PathBuf {
    let shipped = repo_root().join("dataflows/voice-chat.yml");
    let mut doc: Value = serde_yaml::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    for node in doc["nodes"].as_sequence_mut().unwrap() {
        let id = node["id"].as_str().unwrap().to_owned();
        let node = node.as_mapping_mut().unwrap();
        // Built up front by the test.
        node.remove("build");
        let set: Vec<(&str, String)> = match id.as_str() {
            "tutor" | "student1" | "student2" => vec![
                ("LLM_BACKEND", "openai".into()),
                ("LLM_BASE_URL", base_url.into()),
                (
                    "LLM_MODEL",
                    match id.as_str() {
                        "tutor" => "fault-echo-key-event",
                        "student1" => "mock-chat",
                        _ => "fault-echo-key",
                    }
                    .into(),
                ),
            ],
            "tts-player" => vec![
                ("TTS_BACKEND", "openai".into()),
                ("TTS_BASE_URL", base_url.into()),
                ("TTS_MODEL", "fault-echo-key".into()),
                ("VOICE_MAP", "tutor=nova".into()),
                ("AUDIO_OUTPUT", "none".into()),
            ],
            "asr" => vec![
                ("ASR_BACKEND", "openai".into()),
                ("ASR_BASE_URL", base_url.into()),
                ("ASR_MODEL", "fault-echo-key".into()),
            ],
            "console" => vec![("CONSOLE_PORT", console_port.to_string())],
            _ => Vec::new(),
        };
        if set.is_empty() {
            continue;
        }
        let env = node
            .entry("env".into())
            .or_insert_with(|| Value::Mapping(Default::default()))
            .as_mapping_mut()
            .unwrap();
        for (key, value) in set {
            env.insert(key.into(), value.into());
        }
    }
    let path = repo_root().join(format!("dataflows/.secrets-{}.yml", std::process::id()));
    std::fs::write(&path, serde_yaml::to_string(&doc).unwrap()).unwrap();
    path
}

/// Everything the console sends to a page until `deadline` or until it closes: a minimal
/// WebSocket client (no extensions offered, so the server's frames carry their payload as
/// it is, unmasked and uncompressed). Returns the raw bytes after the handshake.
fn watch_console(port: u16, deadline: Instant) -> Vec<u8> {
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(e) if Instant::now() > deadline => panic!("no console on port {port}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    };
    write!(
        stream,
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    let head_end = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a handshake answer");
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    received.split_off(head_end + 4)
}

/// One plain HTTP GET of the console; the whole answer.
fn http_get(port: u16, path: &str) -> Vec<u8> {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return Vec::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    );
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    answer
}

/// Every file under `dir` (followed into folders, not through links), with its bytes.
fn files(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files(&path, out),
            Ok(t) if t.is_file() => {
                let bytes = std::fs::read(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                out.push((path, bytes));
            }
            _ => {}
        }
    }
}

/// Files under `dir` changed since `since`.
fn files_since(dir: &Path, since: SystemTime) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    files(dir, &mut all);
    all.retain(|(path, _)| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since)
    });
    all
}

fn holds(bytes: &[u8], needle: &str) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn a_sentinel_key_appears_in_no_output_of_a_whole_run() {
    let _serial = serial();
    build_workspace();
    let key = format!("sk-proj-{MARK}{}x9Qz", std::process::id());
    let (_server, base_url) = mock_server();
    let console_port = free_port();
    let flow = dataflow(&base_url, console_port);
    let session = session_dir("secrets");
    // dora run in a folder of its own: its `out/` logs land there.
    let work = std::env::temp_dir().join(format!("e2e-secrets-work-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let started = SystemTime::now();
    let stop_after = 40;
    let log = work.join("dora-run.log");
    let child = outside_cargo_test(&mut Command::new(dora()))
        .current_dir(&work)
        .arg("run")
        .arg(&flow)
        .args(["--stop-after", &format!("{stop_after}s")])
        .env("OPENAI_API_KEY", &key)
        .env("SESSION_DIR", &session)
        .envs(e2e_tests::PLUMBING_VOICES.iter().copied())
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(work.join("dora-run.err")).unwrap())
        .spawn()
        .expect("dora run starts");
    let mut run = Running(child);
    let until = Instant::now() + Duration::from_secs(stop_after + 60);
    let watcher = std::thread::spawn(move || watch_console(console_port, until));
    // The page itself, while the console is up.
    let index = loop {
        let answer = http_get(console_port, "/");
        if !answer.is_empty() || Instant::now() > until {
            break answer;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let status = e2e_tests::wait_for_exit(&mut run.0, Duration::from_secs(240));
    let _ = std::fs::remove_file(&flow);
    let page = watcher.join().expect("the page watcher");
    let output = std::fs::read_to_string(&log).unwrap_or_default()
        + &std::fs::read_to_string(work.join("dora-run.err")).unwrap_or_default();
    assert!(status.success(), "dora run failed:\n{output}");

    let transcript = e2e_tests::jsonl(&session, "transcript.jsonl");
    assert!(
        transcript
            .iter()
            .any(|l| e2e_tests::speaker(l) == "student1"),
        "student1's service answered, yet no line of student1:\n{output}"
    );
    assert!(!page.is_empty(), "the console sent the page nothing");
    assert!(
        holds(&page, "tutor"),
        "the console page saw no conversation"
    );

    // Search everything.
    let mut searched: Vec<(String, Vec<u8>)> = vec![
        ("dora run output".into(), output.clone().into_bytes()),
        ("console WebSocket".into(), page),
        ("console page".into(), index),
    ];
    make_writable(&session);
    let mut session_files = Vec::new();
    files(&session, &mut session_files);
    assert!(
        session_files
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains("decisions/"))
            && session_files
                .iter()
                .any(|(p, _)| p.to_string_lossy().contains("context/")),
        "decisions/ and context/ are part of the search"
    );
    // dora's own log folders, wherever this version writes them (1.1: `out/<dataflow
    // id>/log_<node>.jsonl` beside the dataflow); other runs' folders are left out.
    let dataflow_id = std::fs::read_to_string(session.join(".dataflow")).unwrap_or_default();
    let dataflow_id = dataflow_id.trim().to_owned();
    let mut logs = Vec::new();
    files(&work, &mut logs);
    for dir in [repo_root().join("out"), repo_root().join("dataflows/out")] {
        let own = dir.join(&dataflow_id);
        if !dataflow_id.is_empty() && own.is_dir() {
            files(&own, &mut logs);
        } else {
            logs.extend(files_since(&dir, started));
        }
    }
    // Every service was reached: the key went out, came back quoted, and was masked in
    // what each node logged.
    let node_logs = !dataflow_id.is_empty()
        && logs
            .iter()
            .any(|(path, _)| path.to_string_lossy().contains(&dataflow_id));
    for node in ["tutor", "student2", "tts-player", "asr"] {
        let log = format!("log_{node}.jsonl");
        let masked = if node_logs {
            logs.iter().any(|(path, bytes)| {
                path.to_string_lossy().contains(&dataflow_id)
                    && path.ends_with(&log)
                    && holds(bytes, "Bearer ***")
            })
        } else {
            holds(output.as_bytes(), "Bearer ***")
        };
        assert!(
            masked,
            "no masked key from {node}: the test did not reach its service\n{output}"
        );
    }
    let counted = session_files.len() + logs.len();
    for (path, bytes) in session_files.into_iter().chain(logs) {
        searched.push((path.display().to_string(), bytes));
    }
    let leaks: Vec<&str> = searched
        .iter()
        .filter(|(_, bytes)| holds(bytes, MARK))
        .map(|(name, _)| name.as_str())
        .collect();
    eprintln!(
        "searched {} files and {} streams ({} bytes) for the key",
        counted,
        searched.len() - counted,
        searched.iter().map(|(_, b)| b.len()).sum::<usize>()
    );
    assert!(leaks.is_empty(), "the key leaked into: {leaks:#?}");
    // What this run left beside the dataflows: its logs and dora's note of the run.
    let out = repo_root().join("dataflows/out");
    if !dataflow_id.is_empty() {
        let _ = std::fs::remove_dir_all(out.join(&dataflow_id));
    }
    let _ = std::fs::remove_file(
        out.join(format!(".secrets-{}.dora-session.yaml", std::process::id())),
    );
    make_writable(&session);
    let _ = std::fs::remove_dir_all(&session);
    let _ = std::fs::remove_dir_all(&work);
}
