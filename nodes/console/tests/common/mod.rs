//! Running the console binary in dora's integration-testing mode while a test talks to
//! it over loopback.

#![allow(dead_code)]

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use node_kit::testing::TestEvent;
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_console");

/// A port nobody listens on right now.
/// The first of `names` found on PATH.
pub fn find_program(names: &[&str]) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

pub struct Running {
    pub child: Child,
    pub dir: PathBuf,
    pub port: u16,
}

impl Running {
    /// Starts the console with `events` replayed as its inputs.
    pub fn start(env: &[(&str, &str)], events: Vec<TestEvent>, port: u16) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "console-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let events: Vec<Value> = events.into_iter().map(|e| e.value).collect();
        std::fs::write(
            dir.join("inputs.json"),
            json!({ "id": "console", "events": events }).to_string(),
        )
        .expect("inputs");
        let mut command = Command::new(BIN);
        command
            .env("DORA_TEST_WITH_INPUTS", dir.join("inputs.json"))
            .env("DORA_TEST_WRITE_OUTPUTS_TO", dir.join("outputs.jsonl"))
            .env("DORA_TEST_NO_OUTPUT_TIME_OFFSET", "1")
            .env_remove("DORA_NODE_CONFIG")
            .env_remove("CONSOLE_TOKEN")
            .env_remove("CONSOLE_ADDR")
            .env("CONSOLE_PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.join("stdout.log")).expect("log"))
            .stderr(std::fs::File::create(dir.join("stderr.log")).expect("log"));
        for (k, v) in env {
            command.env(k, v);
        }
        let child = command.spawn().expect("spawn the console");
        Self { child, dir, port }
    }

    pub fn logs(&self) -> String {
        let read = |n: &str| std::fs::read_to_string(self.dir.join(n)).unwrap_or_default();
        read("stdout.log") + &read("stderr.log")
    }

    /// The outputs written so far, as JSON values.
    pub fn outputs(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("outputs.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Waits until the console answers on its port (generous: a busy machine).
    pub fn wait_ready(&mut self, headers: &str) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the console exited ({status}) before serving:\n{}",
                    self.logs()
                );
            }
            if let Some(status) = http_status(self.port, "/health", headers)
                && status != 0
            {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the console did not serve within 120 s:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                start.elapsed() < limit,
                "the console did not exit:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The status code of `GET path` on loopback with extra header lines (each ending in
/// `\r\n`); `None` when nothing listens.
pub fn http_status(port: u16, path: &str, headers: &str) -> Option<u16> {
    http_get(port, path, headers).map(|(status, _)| status)
}

/// `(status, raw response)` of `GET path` on loopback.
pub fn http_get(port: u16, path: &str, headers: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let host = if headers.to_ascii_lowercase().contains("host:") {
        String::new()
    } else {
        format!("Host: 127.0.0.1:{port}\r\n")
    };
    write!(
        stream,
        "GET {path} HTTP/1.1\r\n{host}{headers}Connection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Some((status, response))
}
pub mod live;
