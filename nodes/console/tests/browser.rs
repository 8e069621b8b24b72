//! The page in a real browser: headless Chromium driven over WebDriver (chromedriver),
//! the console replaying a recorded voice-chat session in dora's integration-testing
//! mode. Skipped, with a message, only when chromium or chromedriver is not installed
//! (scripts/setup.sh installs both).

mod common;

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use common::{Running, free_port};
use fantoccini::{Client, Locator};
use node_kit::testing::{TestEvent, float32_input, input, keepalive, meta, stop};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(90);

fn status(counts: [u64; 4], cycle: u64, current: &str, q: u64) -> String {
    json!({
        "mode": "ratio_priority",
        "participants": ["human", "tutor", "student1", "student2"],
        "weights": [
            {"name": "human", "weight": 0.001}, {"name": "tutor", "weight": "*"},
            {"name": "student1", "weight": 1.0}, {"name": "student2", "weight": 1.0}
        ],
        "word_counts": {"human": counts[0], "tutor": counts[1], "student1": counts[2], "student2": counts[3]},
        "cycle": cycle, "current_speaker": current, "last_speaker": "tutor",
        "question_id": q, "absent": []
    })
    .to_string()
}

const FINAL_COUNTS: [u64; 4] = [6, 12, 9, 3];

fn text(at: f64, id: &str, text: &str, pairs: &[(&str, Value)]) -> TestEvent {
    input(at, id, json!([text]), meta(pairs))
}

fn voice(at: f64, q: u64, speaker: &str) -> Vec<TestEvent> {
    (0..8)
        .map(|i| {
            let samples: Vec<f32> = (0..320).map(|n| 0.3 * ((n as f32) * 0.2).sin()).collect();
            float32_input(
                at + i as f64 * 0.02,
                "audio",
                json!(samples),
                meta(&[
                    ("sample_rate", json!(16_000)),
                    ("question_id", json!(q)),
                    ("speaker", json!(speaker)),
                ]),
            )
        })
        .collect()
}

/// A study session as the console's inputs see it: two agent lines (the second cut by
/// the human), the human's words, the tutor's answer, and the controller's status.
fn session() -> Vec<TestEvent> {
    let q = |n: u64| json!(n);
    let mut e = vec![
        text(1.0, "status", &status([0; 4], 0, "student1", 1), &[]),
        text(
            1.1,
            "turn",
            "student1",
            &[("question_id", q(1)), ("speaker", json!("student1"))],
        ),
        text(
            1.3,
            "text_student1",
            "What is ",
            &[("question_id", q(1)), ("session_status", json!("started"))],
        ),
        text(
            1.5,
            "utterance",
            "What is a derivative, exactly?",
            &[
                ("question_id", q(1)),
                ("speaker", json!("student1")),
                ("interrupted", json!(false)),
                ("is_human", json!(false)),
            ],
        ),
        text(
            1.6,
            "playback_started",
            "student1",
            &[("question_id", q(1)), ("speaker", json!("student1"))],
        ),
    ];
    e.extend(voice(1.65, 1, "student1"));
    e.extend([
        text(
            2.2,
            "playback_done",
            "What is a derivative, exactly?",
            &[
                ("question_id", q(1)),
                ("speaker", json!("student1")),
                ("interrupted", json!(false)),
                ("chars_played", json!(30)),
            ],
        ),
        text(2.3, "status", &status([0, 0, 5, 0], 0, "tutor", 2), &[]),
        text(
            2.31,
            "turn",
            "tutor",
            &[("question_id", q(2)), ("speaker", json!("tutor"))],
        ),
        text(
            2.5,
            "text_tutor",
            "A derivative ",
            &[("question_id", q(2)), ("session_status", json!("started"))],
        ),
        text(
            2.7,
            "utterance",
            "A derivative measures how fast a function changes at a point.",
            &[
                ("question_id", q(2)),
                ("speaker", json!("tutor")),
                ("interrupted", json!(false)),
                ("is_human", json!(false)),
            ],
        ),
        text(
            2.8,
            "playback_started",
            "tutor",
            &[("question_id", q(2)), ("speaker", json!("tutor"))],
        ),
    ]);
    e.extend(voice(2.85, 2, "tutor"));
    e.extend([
        text(
            3.2,
            "speech_started",
            "human",
            &[("speaker", json!("human"))],
        ),
        text(
            3.3,
            "playback_done",
            "A derivative measures",
            &[
                ("question_id", q(2)),
                ("speaker", json!("tutor")),
                ("interrupted", json!(true)),
                ("chars_played", json!(21)),
            ],
        ),
        text(3.4, "interrupt", "reset", &[("question_id", q(3))]),
        text(
            3.6,
            "transcript",
            "Wait, can you give an example?",
            &[
                ("speaker", json!("human")),
                ("session_status", json!("ended")),
            ],
        ),
        text(
            3.61,
            "utterance",
            "Wait, can you give an example?",
            &[
                ("question_id", q(3)),
                ("speaker", json!("human")),
                ("interrupted", json!(false)),
                ("is_human", json!(true)),
            ],
        ),
        text(3.7, "status", &status([6, 0, 0, 0], 0, "tutor", 4), &[]),
        text(
            3.8,
            "turn",
            "tutor",
            &[("question_id", q(4)), ("speaker", json!("tutor"))],
        ),
        text(
            4.0,
            "text_tutor",
            "Sure: ",
            &[("question_id", q(4)), ("session_status", json!("started"))],
        ),
        text(
            4.2,
            "utterance",
            "Sure: the derivative of x squared is two x.",
            &[
                ("question_id", q(4)),
                ("speaker", json!("tutor")),
                ("interrupted", json!(false)),
                ("is_human", json!(false)),
            ],
        ),
        text(
            4.3,
            "playback_started",
            "tutor",
            &[("question_id", q(4)), ("speaker", json!("tutor"))],
        ),
    ]);
    e.extend(voice(4.35, 4, "tutor"));
    e.extend([
        text(
            4.6,
            "playback_done",
            "Sure: the derivative of x squared is two x.",
            &[
                ("question_id", q(4)),
                ("speaker", json!("tutor")),
                ("interrupted", json!(false)),
                ("chars_played", json!(43)),
            ],
        ),
        text(4.7, "status", &status(FINAL_COUNTS, 1, "student2", 5), &[]),
    ]);
    e.extend(keepalive(0.05, 600.0));
    e.push(stop(600.0));
    e.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    e
}

/// The test's output folder: `<target>/console-test/`.
fn output_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("console-test");
    std::fs::create_dir_all(&dir).expect("output dir");
    dir
}

async fn wait_for<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(start.elapsed() < WAIT, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn js(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.expect("script runs")
}

#[tokio::test(flavor = "current_thread")]
async fn the_page_shows_the_session_and_the_human_can_join() {
    let Some((chromium, chromedriver)) = common::live::browser_programs() else {
        return;
    };
    let out = output_dir();
    // The fake microphone says a sentence (espeak-ng), looped by Chromium.
    let wav = out.join("fake-mic.wav");
    let have_voice = Command::new("espeak-ng")
        .args(["-v", "en-us", "-w"])
        .arg(&wav)
        .arg("Can you show me an example with numbers please")
        .status()
        .is_ok_and(|s| s.success());

    let port = free_port();
    let mut console = Running::start(&[], session(), port);
    console.wait_ready("");

    let (_driver, client) = common::live::browser(
        &chromium,
        &chromedriver,
        have_voice.then_some(wav.as_path()),
    )
    .await;
    let result = drive(&client, &console, port, have_voice, &out).await;
    let shot = client.screenshot().await;
    if let Ok(png) = &shot {
        std::fs::write(out.join("console.png"), png).expect("screenshot written");
    }
    let _ = client.close().await;
    if let Err(e) = result {
        panic!("{e}\n--- console log ---\n{}", console.logs());
    }
    assert!(shot.is_ok(), "screenshot: {shot:?}");
    eprintln!("screenshot: {}", out.join("console.png").display());
    let _ = console.child.kill();
}

async fn drive(
    client: &Client,
    console: &Running,
    port: u16,
    have_voice: bool,
    _out: &Path,
) -> Result<(), String> {
    client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .map_err(|e| format!("open the page: {e}"))?;

    // The transcript, in order, with speakers; the cut line shows what was heard.
    let lines = wait_for("the transcript", async || {
        let v = js(
            client,
            "return [...document.querySelectorAll('#transcript .line')].map(l => ({kind: l.dataset.kind, speaker: l.dataset.speaker, text: l.querySelector('.text').textContent, played: (l.querySelector('.played')||{}).textContent || null, cut: (l.querySelector('.cut')||{}).textContent || null, interrupted: l.dataset.interrupted}))",
        )
        .await;
        let lines = v.as_array()?.clone();
        (lines.len() >= 5 && lines.iter().any(|l| l["text"].as_str() == Some("Sure: the derivative of x squared is two x.") && l["played"].is_string())).then_some(lines)
    })
    .await;
    let summary: Vec<(String, String, String)> = lines
        .iter()
        .map(|l| {
            (
                l["kind"].as_str().unwrap_or_default().to_owned(),
                l["speaker"].as_str().unwrap_or_default().to_owned(),
                l["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("agent", "student1", "What is a derivative, exactly?"),
        (
            "agent",
            "tutor",
            "A derivative measures how fast a function changes at a point.",
        ),
        ("interrupt", "", "reset"),
        ("human", "human", "Wait, can you give an example?"),
        (
            "agent",
            "tutor",
            "Sure: the derivative of x squared is two x.",
        ),
    ];
    let got: Vec<(&str, &str, &str)> = summary
        .iter()
        .map(|(k, s, t)| (k.as_str(), s.as_str(), t.as_str()))
        .collect();
    if got != expected {
        return Err(format!("transcript lines: {got:#?}"));
    }
    let cut = &lines[1];
    if cut["played"] != "A derivative measures"
        || cut["cut"] != " how fast a function changes at a point."
        || cut["interrupted"] != "true"
    {
        return Err(format!("the interrupted line: {cut}"));
    }

    // The share bars match the controller's last status.
    let bars = wait_for("the share bars", async || {
        let v = js(
            client,
            "return [...document.querySelectorAll('#bars .bar')].map(b => ({name: b.dataset.name, share: b.dataset.share, target: b.dataset.target, words: b.dataset.words}))",
        )
        .await;
        let bars = v.as_array()?.clone();
        (bars.len() == 4 && bars.iter().any(|b| b["words"] == "12")).then_some(bars)
    })
    .await;
    let [human, tutor, s1, s2] = FINAL_COUNTS.map(|c| c as f64);
    let ratio_words = human + s1 + s2;
    let total_ratio = 0.001 + 1.0 + 1.0;
    let expect = [
        ("human", human / ratio_words, Some(0.001 / total_ratio)),
        ("tutor", 0.0, None),
        ("student1", s1 / ratio_words, Some(1.0 / total_ratio)),
        ("student2", s2 / ratio_words, Some(1.0 / total_ratio)),
    ];
    let _ = tutor;
    for (bar, (name, share, target)) in bars.iter().zip(expect) {
        let got_share: f64 = bar["share"]
            .as_str()
            .unwrap_or("nan")
            .parse()
            .unwrap_or(f64::NAN);
        let target_ok = match target {
            None => bar["target"] == "priority",
            Some(t) => bar["target"]
                .as_str()
                .and_then(|s| s.parse::<f64>().ok())
                .is_some_and(|g| (g - t).abs() < 1e-9),
        };
        if bar["name"] != name || (got_share - share).abs() > 1e-9 || !target_ok {
            return Err(format!("bar {bar} (expected {name} {share} {target:?})"));
        }
    }
    let mode = js(client, "return document.getElementById('mode').textContent").await;
    if mode != "ratio_priority" {
        return Err(format!("pattern shown: {mode}"));
    }

    // Latency: the turn after the human shows its figures.
    wait_for("the latency table", async || {
        let v = js(
            client,
            "return document.querySelectorAll('#latency tbody tr').length",
        )
        .await;
        (v.as_u64()? >= 3).then_some(())
    })
    .await;

    // Typing as the human: a `human_text` output, exactly like a final transcript.
    let said = "Can you show an example with numbers?";
    let input = client
        .find(Locator::Css("#say-text"))
        .await
        .map_err(|e| format!("text box: {e}"))?;
    input.send_keys(said).await.map_err(|e| e.to_string())?;
    client
        .find(Locator::Css("#say-send"))
        .await
        .map_err(|e| e.to_string())?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    let typed = wait_for("the human_text output", async || {
        console
            .outputs()
            .into_iter()
            .find(|o| o["id"] == "human_text")
    })
    .await;
    // (The testing mode records data only; the metadata, `speaker` and
    // `session_status: ended`, is console-core's `DoraOutput::HumanText`.)
    if typed["data"] != json!([said]) {
        return Err(format!("human_text output: {typed}"));
    }

    // Pause and resume are the controller's `cancel` and `ready`.
    for (button, command) in [("#btn-pause", "cancel"), ("#btn-resume", "ready")] {
        client
            .find(Locator::Css(button))
            .await
            .map_err(|e| e.to_string())?
            .click()
            .await
            .map_err(|e| e.to_string())?;
        wait_for(command, async || {
            console
                .outputs()
                .into_iter()
                .find(|o| o["id"] == "control" && o.to_string().contains(command))
        })
        .await;
    }

    // The browser's microphone: Chromium's fake device (the espeak-ng sentence) becomes
    // the `audio` output at 16 kHz, only while this page holds the microphone.
    client
        .find(Locator::Css("#btn-openmic"))
        .await
        .map_err(|e| e.to_string())?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    let loud = wait_for("microphone audio", async || {
        let outputs = console.outputs();
        let audio: Vec<&Value> = outputs.iter().filter(|o| o["id"] == "audio").collect();
        let loud = audio.iter().any(|o| {
            o["data"]
                .as_array()
                .is_some_and(|s| s.iter().any(|x| x.as_f64().is_some_and(|x| x.abs() > 0.01)))
        });
        (audio.len() >= 5 && (loud || !have_voice)).then_some(loud)
    })
    .await;
    if have_voice && !loud {
        return Err("the fake microphone's sentence was not heard".to_owned());
    }
    client
        .find(Locator::Css("#btn-openmic"))
        .await
        .map_err(|e| e.to_string())?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    wait_for("the microphone released", async || {
        let v = js(
            client,
            "return document.getElementById('mic-state').textContent",
        )
        .await;
        (v == "microphone free").then_some(())
    })
    .await;

    // Listening: the page asks for the voices; stats show it (and the queue counts).
    client
        .find(Locator::Css("#btn-listen"))
        .await
        .map_err(|e| e.to_string())?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    wait_for("stats with a listener", async || {
        let v = js(
            client,
            "return document.getElementById('stats').textContent",
        )
        .await;
        v.as_str()?.contains("listening 1").then_some(())
    })
    .await;
    Ok(())
}
