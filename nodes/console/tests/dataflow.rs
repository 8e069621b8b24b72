//! The console inside a real `dora run` of dataflows/voice-chat.yml (scripted
//! participants, espeak voices, Whisper hearing the human), watched and joined from
//! headless Chromium: the transcript fills in, typing as the human interrupts and gets the
//! tutor's answer, and Chromium's fake microphone saying a sentence becomes a human line.
//!
//! It needs the workspace's binaries (scripts/setup.sh) and runs a whole conversation
//! (about half a minute). Skipped, with a message, only when chromium or chromedriver is
//! not installed. The bridges log every input at debug level: a failure here is read with
//! `RUST_LOG=info,llm_bridge=debug` in `target/console-test/dora-run.log`.

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

mod common;

use common::{find_program, free_port};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(180);
const MIC_SENTENCE: &str = "Please explain the chain rule with a simple example.";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn healthy(port: u16) -> bool {
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

/// espeak-ng's WAV of `text` followed by `pad_secs` of silence, so the looped fake
/// microphone pauses between two sayings.
fn spoken_wav(text: &str, pad_secs: f64, path: &Path) -> bool {
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
    let spec = reader.spec();
    // Written to a pipe, the header's length is a placeholder: read to the end.
    let mut samples: Vec<i32> = reader.samples::<i32>().map_while(Result::ok).collect();
    if samples.is_empty() {
        return false;
    }
    let silence = (f64::from(spec.sample_rate) * pad_secs) as usize * usize::from(spec.channels);
    samples.extend(std::iter::repeat_n(0, silence));
    let Ok(mut writer) = hound::WavWriter::create(path, spec) else {
        return false;
    };
    samples.into_iter().all(|s| writer.write_sample(s).is_ok()) && writer.finalize().is_ok()
}

/// Removes the temporary dataflow file at the end.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

struct Killed(Child, bool);

impl Drop for Killed {
    fn drop(&mut self) {
        if self.1 {
            // dora run stops its dataflow gracefully on Ctrl-C.
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

async fn js(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap_or(Value::Null)
}

const LINES: &str = "return [...document.querySelectorAll('#transcript .line')].map(l => ({kind: l.dataset.kind, speaker: l.dataset.speaker, text: l.querySelector('.text').textContent}))";

async fn lines(client: &Client) -> Vec<Value> {
    js(client, LINES)
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn wait_for<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> Result<T, String> {
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return Ok(v);
        }
        if start.elapsed() > WAIT {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn voice_chat_watched_and_joined_from_the_browser() {
    let (Some(chromium), Some(chromedriver)) = (
        find_program(&["chromium", "chromium-browser", "google-chrome"]),
        find_program(&["chromedriver"]),
    ) else {
        eprintln!(
            "SKIPPED: the browser test needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver, or scripts/setup.sh)"
        );
        return;
    };
    let root = repo_root();
    let dora = std::env::var_os("DORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".venv/bin/dora"));
    assert!(
        dora.exists() || std::env::var_os("DORA").is_some(),
        "the dora CLI is missing: run scripts/setup.sh"
    );
    // The dataflow as users run it, with this build's console and no `build:` step (the
    // other binaries are setup.sh's: `cargo build --release --workspace`).
    for bin in [
        "conference-controller",
        "llm-bridge",
        "text-segmenter",
        "tts-player",
        "scripted-human",
        "asr-bridge",
        "session-recorder",
    ] {
        assert!(
            root.join("target/release").join(bin).is_file(),
            "target/release/{bin} is missing: run scripts/setup.sh (cargo build --release --workspace)"
        );
    }
    let yaml = std::fs::read_to_string(root.join("dataflows/voice-chat.yml")).unwrap();
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
        "dataflows/.console-test-{}.yml",
        std::process::id()
    ));
    std::fs::write(&flow, yaml).unwrap();
    let _flow = Removed(flow.clone());

    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("console-test");
    std::fs::create_dir_all(&out).unwrap();
    let wav = out.join("fake-mic-chain-rule.wav");
    assert!(
        spoken_wav(MIC_SENTENCE, 3.0, &wav),
        "espeak-ng makes the fake microphone's WAV"
    );
    let session = std::env::temp_dir().join(format!("console-dataflow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let port = free_port();
    let mut run = Command::new(&dora);
    run.current_dir(&root)
        .arg("run")
        .arg(&flow)
        .args(["--stop-after", "400s"])
        .env("LLM_BACKEND", "scripted")
        .env("CONSOLE_PORT", port.to_string())
        .env("SESSION_DIR", &session)
        .env("OFFLINE_WORD_DELAY_MS", "30")
        .env("ESPEAK_SPEED", "260")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out.join("dora-run.log")).unwrap())
        .stderr(std::fs::File::create(out.join("dora-run.err.log")).unwrap());
    let mut dataflow = Killed(run.spawn().expect("dora run starts"), true);
    let start = Instant::now();
    while !healthy(port) {
        if let Ok(Some(status)) = dataflow.0.try_wait() {
            panic!(
                "dora run ended ({status}) before the console served; see {}",
                out.display()
            );
        }
        assert!(
            start.elapsed() < WAIT,
            "the console did not serve within {WAIT:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }

    let driver_port = free_port();
    let _driver = Killed(
        Command::new(&chromedriver)
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
        false,
    );
    while TcpStream::connect(("127.0.0.1", driver_port)).is_err() {
        assert!(start.elapsed() < WAIT * 2, "chromedriver did not listen");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let args = vec![
        "--headless=new".to_owned(),
        "--no-sandbox".to_owned(),
        "--disable-gpu".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--window-size=1400,1000".to_owned(),
        "--autoplay-policy=no-user-gesture-required".to_owned(),
        "--use-fake-ui-for-media-stream".to_owned(),
        "--use-fake-device-for-media-stream".to_owned(),
        format!("--use-file-for-fake-audio-capture={}", wav.display()),
    ];
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
    let result = drive(&client, port).await;
    if let Ok(png) = client.screenshot().await {
        std::fs::write(out.join("console-dataflow.png"), png).unwrap();
    }
    let _ = client.close().await;
    drop(dataflow);
    if let Err(e) = result {
        panic!("{e}\n(logs in {})", out.display());
    }
    eprintln!("screenshot: {}", out.join("console-dataflow.png").display());
}

async fn click(client: &Client, css: &str) -> Result<(), String> {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("{css}: {e}"))?;
    Ok(())
}

async fn drive(client: &Client, port: u16) -> Result<(), String> {
    client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .map_err(|e| format!("open the page: {e}"))?;
    // Agents speak; their lines appear with speakers, a student first (cold start).
    let first = wait_for("three agent lines", async || {
        let agents: Vec<Value> = lines(client)
            .await
            .into_iter()
            .filter(|l| l["kind"] == "agent")
            .collect();
        (agents.len() >= 3).then_some(agents)
    })
    .await?;
    let speaker0 = first[0]["speaker"].as_str().unwrap_or_default().to_owned();
    if !speaker0.starts_with("student") {
        return Err(format!("the first line is not a student's: {first:?}"));
    }
    // The share bars: one per participant of the pattern, shares of ratio words sum to 1.
    wait_for("share bars", async || {
        let v = js(
            client,
            "return [...document.querySelectorAll('#bars .bar')].map(b => [b.dataset.name, parseFloat(b.dataset.share), b.dataset.target])",
        )
        .await;
        let bars = v.as_array()?.clone();
        let names: Vec<&str> = bars.iter().filter_map(|b| b[0].as_str()).collect();
        let sum: f64 = bars.iter().filter_map(|b| b[1].as_f64()).sum();
        (names == ["human", "tutor", "student1", "student2"] && (sum - 1.0).abs() < 1e-6).then_some(())
    })
    .await?;

    // Typing as the human: an interrupt, the human's line, and the tutor answers.
    let typed = "Can you give me an example with a parabola?";
    client
        .find(Locator::Css("#say-text"))
        .await
        .map_err(|e| e.to_string())?
        .send_keys(typed)
        .await
        .map_err(|e| e.to_string())?;
    click(client, "#say-send").await?;
    wait_for(
        "the interrupt, the typed line and the tutor's answer",
        async || {
            let all = lines(client).await;
            let h = all
                .iter()
                .position(|l| l["kind"] == "human" && l["text"] == typed)?;
            let interrupt = all[..h]
                .iter()
                .rev()
                .take(4)
                .any(|l| l["kind"] == "interrupt")
                || all[h..].iter().take(3).any(|l| l["kind"] == "interrupt");
            let answer = all[h + 1..].iter().find(|l| l["kind"] == "agent")?;
            (interrupt && answer["speaker"] == "tutor").then_some(())
        },
    )
    .await?;

    // The browser's microphone: the fake device says the sentence; Whisper hears it.
    click(client, "#btn-openmic").await?;
    let heard = wait_for("a human line from the microphone", async || {
        lines(client).await.into_iter().find(|l| {
            let t = l["text"].as_str().unwrap_or_default().to_lowercase();
            l["kind"] == "human" && (t.contains("chain") || t.contains("rule"))
        })
    })
    .await?;
    click(client, "#btn-openmic").await?;
    eprintln!("heard from the browser microphone: {heard}");
    // The latency table has figures.
    let rows = js(
        client,
        "return document.querySelectorAll('#latency tbody tr').length",
    )
    .await;
    if rows.as_u64().unwrap_or(0) == 0 {
        return Err("no latency rows".to_owned());
    }
    Ok(())
}
