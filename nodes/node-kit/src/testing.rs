//! Running a node binary in dora's integration-testing mode (`DORA_TEST_WITH_INPUTS`),
//! for the nodes' own tests. No daemon is involved.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

/// One scripted input event.
#[derive(Debug, Clone)]
pub struct TestEvent {
    pub at_secs: f64,
    pub value: Value,
}

/// An input with Utf8 data (`data` may be any JSON the testing mode converts to Arrow).
pub fn input(at_secs: f64, id: &str, data: Value, metadata: Value) -> TestEvent {
    let mut event = json!({ "time_offset_secs": at_secs, "type": "Input", "id": id });
    if !data.is_null() {
        event["data"] = data;
    }
    if !metadata.is_null() {
        event["metadata"] = metadata;
    }
    TestEvent {
        at_secs,
        value: event,
    }
}

/// An input whose data is a Float32 array (audio samples; `"NaN"`, `"Infinity"` and
/// `"-Infinity"` strings stand for the non-finite values JSON cannot write).
pub fn float32_input(at_secs: f64, id: &str, samples: Value, metadata: Value) -> TestEvent {
    let mut event = input(at_secs, id, samples, metadata);
    event.value["data_type"] = json!("Float32");
    event
}

/// An input with an explicit Arrow data type, e.g. `"UInt8"`.
pub fn typed_input(at_secs: f64, id: &str, data: Value, data_type: &str) -> TestEvent {
    let value = json!({
        "time_offset_secs": at_secs, "type": "Input", "id": id,
        "data": data, "data_type": data_type,
    });
    TestEvent { at_secs, value }
}

pub fn stop(at_secs: f64) -> TestEvent {
    TestEvent {
        at_secs,
        value: json!({ "time_offset_secs": at_secs, "type": "Stop" }),
    }
}

/// Metadata helpers in the testing format (`{"key": {"Integer": 1}}`).
pub fn meta(pairs: &[(&str, Value)]) -> Value {
    let mut map = serde_json::Map::new();
    for (key, value) in pairs {
        let tagged = match value {
            Value::Bool(b) => json!({ "Bool": b }),
            Value::Number(n) if n.is_i64() || n.is_u64() => json!({ "Integer": n }),
            Value::Number(n) => json!({ "Float": n }),
            Value::String(s) => json!({ "String": s }),
            other => panic!("unsupported metadata value {other}"),
        };
        map.insert((*key).to_owned(), tagged);
    }
    Value::Object(map)
}

/// No-op interrupts (question 0, older than anything) every 20 ms from `from` to `to`:
/// the replayed stream blocks a node while it waits for input, and this steady trickle
/// lets a generating or playing node send its outputs in real time.
pub fn keepalive(from: f64, to: f64) -> Vec<TestEvent> {
    let steps = ((to - from) / 0.02) as usize;
    (0..steps)
        .map(|i| {
            input(
                from + i as f64 * 0.02,
                "interrupt",
                json!(["cancel"]),
                meta(&[("question_id", json!(0))]),
            )
        })
        .collect()
}

/// What a node run produced.
pub struct NodeRun {
    pub success: bool,
    pub outputs: Vec<Value>,
    pub stderr: String,
    /// The process's peak resident memory in KiB, last read while it ran (Linux's
    /// `/proc`; `None` elsewhere or when it exited before the first reading).
    pub peak_rss_kib: Option<u64>,
}

impl NodeRun {
    /// `(output id, text)` pairs for Utf8 outputs.
    pub fn texts(&self) -> Vec<(String, String)> {
        self.outputs
            .iter()
            .map(|o| {
                let id = o["id"].as_str().unwrap_or_default().to_owned();
                let text = match &o["data"] {
                    Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
                    Value::String(s) => s.clone(),
                    _ => String::new(),
                };
                (id, text)
            })
            .collect()
    }

    /// Texts of one output id.
    pub fn texts_of(&self, id: &str) -> Vec<String> {
        self.texts()
            .into_iter()
            .filter(|(i, _)| i == id)
            .map(|(_, t)| t)
            .collect()
    }
}

/// Runs `binary` with the events, extra env, and a hard time limit.
pub fn run_node(
    binary: &Path,
    env: &[(&str, &str)],
    events: Vec<TestEvent>,
    limit: Duration,
) -> NodeRun {
    run_node_in(binary, None, env, events, limit)
}

/// [`run_node`] in a working directory (a dataflow's folder, for its relative paths).
pub fn run_node_in(
    binary: &Path,
    cwd: Option<&Path>,
    env: &[(&str, &str)],
    events: Vec<TestEvent>,
    limit: Duration,
) -> NodeRun {
    let dir = std::env::temp_dir().join(format!(
        "node-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let inputs = dir.join("inputs.json");
    let outputs = dir.join("outputs.jsonl");
    let events: Vec<Value> = events.into_iter().map(|e| e.value).collect();
    std::fs::write(
        &inputs,
        json!({ "id": "node-under-test", "events": events }).to_string(),
    )
    .expect("write inputs");
    let mut command = Command::new(binary);
    command
        .env("DORA_TEST_WITH_INPUTS", &inputs)
        .env("DORA_TEST_WRITE_OUTPUTS_TO", &outputs)
        .env("DORA_TEST_NO_OUTPUT_TIME_OFFSET", "1")
        .env_remove("DORA_NODE_CONFIG")
        // Session files of a node that writes them go to the run's temporary folder
        // unless the test chose a place.
        .env("SESSIONS_ROOT", dir.join("sessions"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout.log")).expect("log file"))
        .stderr(std::fs::File::create(dir.join("stderr.log")).expect("log file"));
    for (k, v) in env {
        command.env(k, v);
    }
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().expect("spawn node");
    let start = Instant::now();
    let mut peak_rss_kib = None;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        peak_rss_kib = peak_rss(child.id()).or(peak_rss_kib);
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("node {} did not exit within {limit:?}", binary.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let log = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let logs = log("stderr.log") + &log("stdout.log");
    let outputs = std::fs::read_to_string(&outputs)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("output line is JSON"))
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    NodeRun {
        success: status.success(),
        outputs,
        stderr: logs,
        peak_rss_kib,
    }
}

/// `VmHWM` of a running process, in KiB.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Makes `dir` and everything below it writable again (a frozen context session is
/// read-only), so a test can remove it.
pub fn make_writable(dir: &Path) {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    for path in entries {
        if path.is_dir() {
            make_writable(&path);
        } else {
            set_writable(&path);
        }
    }
    set_writable(dir);
}

fn set_writable(path: &Path) {
    if let Ok(meta) = std::fs::metadata(path) {
        let mut p = meta.permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        p.set_readonly(false);
        let _ = std::fs::set_permissions(path, p);
    }
}
