//! A shipped dataflow run by `dora run` with this build's console, and headless Chromium
//! (over chromedriver) on its page: what the tests that join a live session share.

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use super::{find_program, free_port};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// Where a test keeps its logs and screenshots: `target/<name>/`.
pub fn out_dir(name: &str) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join(name);
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// chromium and chromedriver, or `None` after saying the test is skipped.
pub fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    match (
        find_program(&["chromium", "chromium-browser", "google-chrome"]),
        find_program(&["chromedriver"]),
    ) {
        (Some(chromium), Some(chromedriver)) => Some((chromium, chromedriver)),
        _ => {
            eprintln!(
                "SKIPPED: the browser test needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver, or scripts/setup.sh)"
            );
            None
        }
    }
}

pub fn healthy(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = write!(
        s,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    );
    let mut r = String::new();
    let _ = s.read_to_string(&mut r);
    r.starts_with("HTTP/1.1 200")
}

/// espeak-ng's WAV of each text followed by its seconds of silence, one after the
/// other, so that the looped fake microphone pauses between sayings.
pub fn spoken_wav(sayings: &[(&str, f64)], path: &Path) -> bool {
    let mut spec = None;
    let mut all: Vec<i32> = Vec::new();
    for (text, pad_secs) in sayings {
        let Ok(out) = Command::new("espeak-ng")
            .args(["-v", "en-us", "--stdout", text])
            .output()
        else {
            return false;
        };
        if !out.status.success() {
            return false;
        }
        let Ok(mut reader) = hound::WavReader::new(std::io::Cursor::new(out.stdout)) else {
            return false;
        };
        let this = reader.spec();
        // Written to a pipe, the header's length is a placeholder: read to the end.
        let samples: Vec<i32> = reader.samples::<i32>().map_while(Result::ok).collect();
        if samples.is_empty() {
            return false;
        }
        all.extend(samples);
        let silence =
            (f64::from(this.sample_rate) * pad_secs) as usize * usize::from(this.channels);
        all.extend(std::iter::repeat_n(0, silence));
        spec = Some(this);
    }
    let Some(spec) = spec else {
        return false;
    };
    let Ok(mut writer) = hound::WavWriter::create(path, spec) else {
        return false;
    };
    all.into_iter().all(|s| writer.write_sample(s).is_ok()) && writer.finalize().is_ok()
}

/// Removes a temporary file at the end.
pub struct Removed(pub PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A child process stopped at the end: with Ctrl-C first (`dora run` then stops its
/// dataflow gracefully) when the flag is set, else killed.
pub struct Killed(pub Child, pub bool);

impl Drop for Killed {
    fn drop(&mut self) {
        if self.1 {
            let _ = Command::new("kill")
                .args(["-INT", &self.0.id().to_string()])
                .status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(60) {
                if let Ok(Some(_)) = self.0.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A shipped dataflow as users run it, with this build's console and no `build:` step
/// (the other binaries are setup.sh's: `cargo build --release --workspace`).
pub struct LiveDataflow {
    pub run: Killed,
    pub port: u16,
    pub out: PathBuf,
    _flow: Removed,
}

impl LiveDataflow {
    /// `dora run dataflows/<name>` with `env`, its logs in `out`; returns once the
    /// console serves its page.
    pub fn start(name: &str, binaries: &[&str], env: &[(&str, String)], out: &Path) -> Self {
        let root = repo_root();
        let dora = std::env::var_os("DORA")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".venv/bin/dora"));
        assert!(
            dora.exists() || std::env::var_os("DORA").is_some(),
            "the dora CLI is missing: run scripts/setup.sh"
        );
        for bin in binaries {
            assert!(
                root.join("target/release").join(bin).is_file(),
                "target/release/{bin} is missing: run scripts/setup.sh (cargo build --release --workspace)"
            );
        }
        let yaml = std::fs::read_to_string(root.join("dataflows").join(name)).unwrap();
        let yaml: String = yaml
            .lines()
            .filter(|l| !l.trim_start().starts_with("build:"))
            .map(|l| {
                if l.trim() == "path: ../target/release/console" {
                    format!("    path: {}", env!("CARGO_BIN_EXE_console"))
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let flow = root.join(format!(
            "dataflows/.console-test-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&flow, yaml).unwrap();
        let flow = Removed(flow);
        let port = free_port();
        let mut run = Command::new(&dora);
        outside_cargo_test(&mut run);
        run.current_dir(&root)
            .arg("run")
            .arg(&flow.0)
            .args(["--stop-after", "600s"])
            .env("CONSOLE_PORT", port.to_string())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(out.join("dora-run.log")).unwrap())
            .stderr(std::fs::File::create(out.join("dora-run.err.log")).unwrap());
        let mut run = Killed(run.spawn().expect("dora run starts"), true);
        let start = Instant::now();
        while !healthy(port) {
            if let Ok(Some(status)) = run.0.try_wait() {
                panic!(
                    "dora run ended ({status}) before the console served; see {}",
                    out.display()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(180),
                "the console did not serve within 180 s; see {}",
                out.display()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        Self {
            run,
            port,
            out: out.to_owned(),
            _flow: flow,
        }
    }
}

/// Clears this test's cargo variables from `command`: a `cargo build` under it must not
/// see CARGO_MANIFEST_DIR, or a build script watching it (ring's) rebuilds half the
/// workspace twice per run. The list of e2e_tests::outside_cargo_test (a crate these
/// tests do not use).
pub fn outside_cargo_test(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(|n| {
            n.starts_with("CARGO_PKG_")
                || [
                    "CARGO_MANIFEST_DIR",
                    "CARGO_MANIFEST_PATH",
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                ]
                .contains(&n)
        }) {
            command.env_remove(name);
        }
    }
}

/// Headless Chromium whose fake microphone plays `wav` (looped; else a tone), over
/// chromedriver.
pub async fn browser(chromium: &Path, chromedriver: &Path, wav: Option<&Path>) -> (Killed, Client) {
    let driver_port = free_port();
    let driver = Killed(
        Command::new(chromedriver)
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
        false,
    );
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", driver_port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "chromedriver did not listen"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut args = vec![
        "--headless=new".to_owned(),
        "--no-sandbox".to_owned(),
        "--disable-gpu".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--window-size=1400,1000".to_owned(),
        "--autoplay-policy=no-user-gesture-required".to_owned(),
        "--use-fake-ui-for-media-stream".to_owned(),
        "--use-fake-device-for-media-stream".to_owned(),
    ];
    if let Some(wav) = wav {
        args.push(format!(
            "--use-file-for-fake-audio-capture={}",
            wav.display()
        ));
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_owned(),
        json!({ "binary": chromium, "args": args }),
    );
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{driver_port}"))
        .await
        .expect("a WebDriver session");
    (driver, client)
}

pub async fn js(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap_or(Value::Null)
}

const LINES: &str = "return [...document.querySelectorAll('#transcript .line')].map(l => ({kind: l.dataset.kind, speaker: l.dataset.speaker, text: l.querySelector('.text').textContent}))";

/// The transcript's lines as the page shows them: kind, speaker, text.
pub async fn lines(client: &Client) -> Vec<Value> {
    js(client, LINES)
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Polls `check` until it gives a value, for at most `limit`.
pub async fn wait_for<T>(
    what: &str,
    limit: Duration,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> Result<T, String> {
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return Ok(v);
        }
        if start.elapsed() > limit {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

pub async fn click(client: &Client, css: &str) -> Result<(), String> {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("{css}: {e}"))?;
    Ok(())
}

/// Saves a screenshot of the page as `out/<name>.png`.
pub async fn screenshot(client: &Client, out: &Path, name: &str) {
    if let Ok(png) = client.screenshot().await {
        let path = out.join(format!("{name}.png"));
        if std::fs::write(&path, png).is_ok() {
            eprintln!("screenshot: {}", path.display());
        }
    }
}
