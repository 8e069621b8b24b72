//! Helpers for running the project's dataflows through the dora CLI in tests.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::{Mutex, MutexGuard},
    time::{Duration, Instant},
};

use serde_json::Value;

/// Dataflows share ports and machine time: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// The dora CLI: `$DORA`, else the project's venv (scripts/setup.sh), else `dora` on PATH.
pub fn dora() -> PathBuf {
    if let Some(path) = std::env::var_os("DORA") {
        return PathBuf::from(path);
    }
    let venv = repo_root().join(".venv/bin/dora");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("dora")
}

/// A fresh, empty folder for one test's session.
pub fn session_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `command` with a hard limit; the child is killed if it overruns.
pub fn run_with_limit(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e} (run scripts/setup.sh first)"));
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || read_all(stdout));
    let err_reader = std::thread::spawn(move || read_all(stderr));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break child.wait().expect("wait after kill");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

fn read_all(mut reader: impl std::io::Read) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = reader.read_to_end(&mut buf);
    buf
}

/// Builds every binary up front: `dora run` runs each node's `build:` command first, and
/// a compile there would eat into `--stop-after`.
pub fn build_workspace() {
    let status = Command::new(env!("CARGO"))
        .current_dir(repo_root())
        .args(["build", "--release", "--workspace", "--quiet"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release --workspace failed");
}

/// `dora run <dataflow> --stop-after <secs>` from the repository root, with extra env.
pub fn dora_run(dataflow: &str, stop_after_secs: u64, env: &[(&str, &str)]) -> Output {
    build_workspace();
    let mut command = Command::new(dora());
    command
        .current_dir(repo_root())
        .args(["run", dataflow, "--stop-after"])
        .arg(format!("{stop_after_secs}s"));
    for (k, v) in env {
        command.env(k, v);
    }
    let output = run_with_limit(&mut command, Duration::from_secs(stop_after_secs + 240));
    assert!(
        output.status.success(),
        "dora run {dataflow} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Reads a JSONL file of the session folder.
pub fn jsonl(dir: &Path, name: &str) -> Vec<Value> {
    let path = dir.join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

/// A transcript line's speaker.
pub fn speaker(line: &Value) -> &str {
    line["speaker"].as_str().unwrap_or_default()
}
